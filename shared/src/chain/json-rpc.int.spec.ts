/** The lean JSON-RPC client against HTTP servers on loopback that answer as a node or a provider would. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DependencyUnavailable } from '../errors/unavailable';
import { JsonRpcClient, RpcError } from './json-rpc';

let server: Server;
let url: string;
let answer: (body: { method: string; params: unknown[]; id: number }) => { status: number; text: string };

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const { status, text } = answer(JSON.parse(body) as Parameters<typeof answer>[0]);
      res.writeHead(status, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
});
afterAll(() => new Promise((r) => server.close(r)));

it('sends the method and params, and resolves to the result', async () => {
  answer = (b) => ({
    status: 200,
    text: JSON.stringify({ jsonrpc: '2.0', id: b.id, result: [b.method, b.params] }),
  });
  const client = new JsonRpcClient(url);
  await expect(client.call('getBalance', ['addr'])).resolves.toEqual(['getBalance', ['addr']]);
  await client.close();
});

it("raises the node's JSON-RPC error with its code, message and data", async () => {
  answer = (b) => ({
    status: 200,
    text: JSON.stringify({
      jsonrpc: '2.0',
      id: b.id,
      error: { code: -32002, message: 'Transaction simulation failed', data: { logs: ['a log'] } },
    }),
  });
  const client = new JsonRpcClient(url);
  const err = await client.call('sendTransaction', []).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RpcError);
  expect(err).toMatchObject({
    code: -32002,
    message: 'Transaction simulation failed',
    data: { logs: ['a log'] },
  });
  await client.close();
});

it('counts an HTTP error (a provider rate-limiting or down) and a node not listening as unavailable', async () => {
  answer = () => ({ status: 503, text: 'busy' });
  const client = new JsonRpcClient(url);
  await expect(client.call('getHealth')).rejects.toBeInstanceOf(DependencyUnavailable);
  await client.close();

  const closed = new JsonRpcClient('http://127.0.0.1:1/');
  await expect(closed.call('getHealth')).rejects.toBeInstanceOf(DependencyUnavailable);
  await closed.close();
});

it('counts a node that does not answer in time as unavailable', async () => {
  answer = () => ({ status: 200, text: '{}' });
  const hanging = createServer(() => undefined); // reads the request, never answers
  await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
  const client = new JsonRpcClient(`http://127.0.0.1:${(hanging.address() as AddressInfo).port}`, {
    timeoutMs: 300,
  });
  await expect(client.call('getHealth')).rejects.toBeInstanceOf(DependencyUnavailable);
  await client.close();
  hanging.closeAllConnections();
  await new Promise((r) => hanging.close(r));
});
