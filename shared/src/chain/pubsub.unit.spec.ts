import { pubsubUrlFor } from './pubsub';

describe("a cluster's WebSocket, by Solana's convention", () => {
  it('is the RPC URL with ws(s):// and, where it names a port, the next one', () => {
    expect(pubsubUrlFor('http://127.0.0.1:8899')).toBe('ws://127.0.0.1:8900/');
    expect(pubsubUrlFor('https://api.devnet.solana.com')).toBe('wss://api.devnet.solana.com/');
    expect(pubsubUrlFor('https://rpc.example.com:8443/key?x=1')).toBe('wss://rpc.example.com:8444/key?x=1');
  });
});
