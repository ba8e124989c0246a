/** What the front of the local fleet passes on: every end-to-end header, repeated ones repeated; no hop-by-hop one. */
import { endToEndHeaders } from '../../../devhost/front';

describe('headers through the front', () => {
  it('passes end-to-end headers on as they came, repeated ones as many times as they came', () => {
    const raw = ['Host', 'localhost:7071', 'Authorization', 'Bearer a', 'authorization', 'Bearer b', 'X-A', '1'];
    expect(endToEndHeaders(raw)).toEqual(raw);
  });

  it('drops the headers of one connection, and those the Connection header names', () => {
    const raw = [
      'Connection',
      'keep-alive, X-Hop',
      'Keep-Alive',
      'timeout=5',
      'Transfer-Encoding',
      'chunked',
      'TE',
      'trailers',
      'Upgrade',
      'h2c',
      'Proxy-Authorization',
      'Basic x',
      'X-Hop',
      'only for this connection',
      'Content-Type',
      'application/json',
    ];
    expect(endToEndHeaders(raw)).toEqual(['Content-Type', 'application/json']);
  });
});
