/**
 * What the API needs to serve the console: where its bundle is (dist/, built by scripts/build.mjs at
 * install) and the one HTML page that loads it. The browser code itself is web/.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The folder of the built bundle: console.js and console.css. */
export const CONSOLE_ASSETS_DIR = join(__dirname, '..', 'dist');

/** Where the page is served, and its assets under it. */
export const CONSOLE_PATH = '/console';
export const CONSOLE_ASSETS_PATH = `${CONSOLE_PATH}/assets`;

/** Whether the bundle was built (`npm ci` builds it; `npm run console:build` again after a change). */
export const consoleBuilt = (): boolean => existsSync(join(CONSOLE_ASSETS_DIR, 'console.js'));

/** The page: no inline script or style, the bundle from this service only. */
export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Operator console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${CONSOLE_ASSETS_PATH}/console.css">
<script type="module" src="${CONSOLE_ASSETS_PATH}/console.js"></script>
</head>
<body>
<div id="console"></div>
</body>
</html>
`;
