import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { PubsubClient } from './pubsub';
import { waitFor } from '../event-store/contract';

/**
 * A node's WebSocket that answers subscriptions as a Solana node does, but not pings (`autoPong`
 * off): a peer that went silent without closing. The client must leave it and ask again elsewhere.
 */
describe('the PubSub client and a node that stops answering', () => {
  it('takes a socket whose ping went unanswered for dead, opens another and subscribes again', async () => {
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1', autoPong: false });
    const sockets: WebSocket[] = [];
    const asked: string[] = [];
    server.on('connection', (socket) => {
      sockets.push(socket);
      socket.on('message', (data) => {
        const request = JSON.parse(String(data)) as { id: number; method: string };
        asked.push(`${sockets.indexOf(socket)}:${request.method}`);
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: 7 }));
      });
    });
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const client = new PubsubClient(url, { heartbeatMs: 100, reconnectMs: 50 });
    const touched: string[] = [];
    try {
      client.logs('11111111111111111111111111111111', (signature) => touched.push(signature));
      await waitFor(() => sockets.length >= 2 && asked.includes('1:logsSubscribe'));
      expect(asked.slice(0, 2)).toEqual(['0:logsSubscribe', '1:logsSubscribe']);
      // The new socket's subscription is the one notified.
      sockets[1]!.send(
        JSON.stringify({
          jsonrpc: '2.0',
          method: 'logsNotification',
          params: {
            result: { context: { slot: 1 }, value: { signature: 'sig', err: null, logs: [] } },
            subscription: 7,
          },
        }),
      );
      await waitFor(() => touched.length === 1);
      expect(touched).toEqual(['sig']);
    } finally {
      client.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
