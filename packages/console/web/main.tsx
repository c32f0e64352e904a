/**
 * The operator console: sign in, then one page per place (#/groups, #/groups/<id> and a group's
 * pages). Each page is one file of pages/; this file routes between them and shows the session (the
 * wallet, when the session ends). Signing in again after the session ended comes back to the same page.
 */
import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import { sessionEnded, useSession } from './session';
import { SignIn } from './signin';
import { useRoute, type Route } from './route';
import { short, useNow } from './ui';
import { span } from './words';
import { Groups } from './pages/groups';
import { OverviewPage } from './pages/overview';
import { AgentsPage } from './pages/agents';
import { AllowListPage } from './pages/allowlist';
import { InboxPage } from './pages/inbox';
import { LogPage } from './pages/log';
import { WebhooksPage } from './pages/webhooks';
import { PolicyPage } from './pages/policy';
import { GuardPage } from './pages/guard';
import { MembersPage } from './pages/members';
import { AuditPage } from './pages/audit';
import './style.css';

function Page({ route }: { route: Route }) {
  const [top, group, section] = route.parts;
  if (top === 'groups' && group) {
    switch (section) {
      case 'agents':
        return <AgentsPage group={group} route={route} />;
      case 'allow-list':
        return <AllowListPage group={group} route={route} />;
      case 'inbox':
      case 'approvals':
        return <InboxPage group={group} />;
      case 'log':
        return <LogPage group={group} route={route} />;
      case 'webhooks':
        return <WebhooksPage group={group} />;
      case 'policy':
        return <PolicyPage group={group} />;
      case 'guard':
        return <GuardPage group={group} />;
      case 'members':
        return <MembersPage group={group} />;
      case 'audit':
        return <AuditPage group={group} />;
      default:
        return <OverviewPage group={group} />;
    }
  }
  return <Groups />;
}

/** When the session ends, counting down in its last ten minutes. */
function SessionEnds({ at }: { at: string }) {
  const now = useNow(15_000);
  const left = Date.parse(at) - now;
  return (
    <span class={left < 600_000 ? 'warn-text' : 'muted'} title={new Date(at).toLocaleString()}>
      {left < 600_000
        ? `session ends in ${span(left)}`
        : `session until ${new Date(at).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}`}
    </span>
  );
}

function App() {
  const route = useRoute();
  const s = useSession();
  useEffect(() => {
    if (!s) document.title = 'Operator console: sign in';
    else if (route.parts.length < 2) document.title = 'Groups · Operator console';
  }, [s, route]);
  return (
    <>
      <header class="top">
        <a class="brand" href="#/groups">
          Token operations
        </a>
        {s && (
          <span class="who">
            <span class="mono" title={s.wallet}>
              {short(s.wallet)}
            </span>
            <SessionEnds at={s.expires_at} />
            <button type="button" class="secondary" onClick={() => sessionEnded('signed-out')}>
              Sign out
            </button>
          </span>
        )}
      </header>
      <main>{s ? <Page route={route} /> : <SignIn />}</main>
    </>
  );
}

render(<App />, document.getElementById('console')!);
