/**
 * The operator console: sign in, then one page per place (#/groups, #/groups/<id>, its approvals, its
 * webhooks, its audit). Each page is one file of pages/; this file only routes between them.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { setToken, signedIn } from './api';
import { SignIn } from './signin';
import { Groups } from './pages/groups';
import { Group } from './pages/group';
import { Approvals } from './pages/approvals';
import { Webhooks } from './pages/webhooks';
import { Audit } from './pages/audit';
import './style.css';

/** The route: the location's hash, split (`#/groups/<id>/audit` is ['groups', '<id>', 'audit']). */
function useRoute(): string[] {
  const parts = () => location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const [route, setRoute] = useState(parts);
  useEffect(() => {
    const update = () => setRoute(parts());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

function Page({ route }: { route: string[] }) {
  const [top, group, section] = route;
  if (top === 'groups' && group) {
    if (section === 'approvals') return <Approvals group={group} />;
    if (section === 'webhooks') return <Webhooks group={group} />;
    if (section === 'audit') return <Audit group={group} />;
    return <Group group={group} />;
  }
  return <Groups />;
}

function App() {
  const route = useRoute();
  const [wallet, setWallet] = useState<string>();
  useEffect(() => {
    document.title = wallet ? 'Operator console' : 'Operator console: sign in';
  }, [wallet]);
  return (
    <>
      <header class="top">
        <a class="brand" href="#/groups">
          Token operations
        </a>
        {wallet && signedIn() && (
          <span class="who">
            <span class="mono" title={wallet}>
              {wallet.slice(0, 4)}…{wallet.slice(-4)}
            </span>
            <button
              type="button"
              onClick={() => {
                setToken(undefined);
                setWallet(undefined);
              }}
            >
              Sign out
            </button>
          </span>
        )}
      </header>
      <main>{wallet ? <Page route={route} /> : <SignIn onSignedIn={setWallet} />}</main>
    </>
  );
}

render(<App />, document.getElementById('console')!);
