import Big from 'big.js';
import { decodeUtf8, parseJson, stringifyJson } from './json';
import { ServiceError } from '../errors';

describe('JSON at the boundary', () => {
  it('keeps every digit of a number a float cannot hold, as the text the caller wrote', () => {
    expect(parseJson('{"amount": 1000000000000.000001}')).toEqual({ amount: '1000000000000.000001' });
    expect(parseJson('{"amount": 12.5, "n": 3}')).toEqual({ amount: 12.5, n: 3 });
  });

  it('turns malformed JSON into validation_error at the root, not an exception with a stack', () => {
    for (const text of ['{', '{"a":}', '', 'nul', '{"a":1,"a":2}']) {
      try {
        parseJson(text);
        throw new Error(`accepted ${text}`);
      } catch (err) {
        expect(err).toBeInstanceOf(ServiceError);
        expect((err as ServiceError).toBody()).toEqual({
          error: 'validation_error',
          message: 'The request body is not valid JSON.',
          details: [{ path: '', issue: expect.stringMatching(/^the body is not valid JSON/) }],
        });
      }
    }
  });

  it('refuses invalid UTF-8 instead of replacing it with U+FFFD', () => {
    expect(decodeUtf8(Buffer.from('{"memo":"café"}'))).toBe('{"memo":"café"}');
    for (const bytes of [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf8, 0x88, 0x80, 0x80, 0x80]]) {
      const body = Buffer.concat([Buffer.from('{"memo":"'), Buffer.from(bytes), Buffer.from('"}')]);
      expect(() => decodeUtf8(body)).toThrow(
        expect.objectContaining({
          code: 'validation_error',
          details: [{ path: '', issue: 'the body is not valid UTF-8' }],
        }),
      );
    }
  });

  it('refuses a string the log cannot store (written as a JSON escape), pointing at it', () => {
    for (const [text, path] of [
      ['{"memo":"a\\u0000b"}', '/memo'],
      ['{"a":[{"b":"\\ud800"}]}', '/a/0/b'],
      ['{"x\\u0000":1}', '/x\u0000'],
    ]) {
      expect(() => parseJson(text!)).toThrow(
        expect.objectContaining({ code: 'validation_error', details: [expect.objectContaining({ path })] }),
      );
    }
    expect(parseJson('{"memo":"\\ud83d\\ude80"}')).toEqual({ memo: '🚀' });
  });

  it('leaves a caller’s string that looks like the marker alone', () => {
    expect(stringifyJson({ memo: '\u0001123\u0001', n: new Big('1.5') })).toBe(
      '{"memo":"\\u0001123\\u0001","n":1.5}',
    );
    expect(JSON.parse(stringifyJson({ memo: '\u0001123\u0001' })).memo).toBe('\u0001123\u0001');
  });

  it('writes amounts as JSON numbers from their exact decimal text', () => {
    expect(stringifyJson({ net_amount: new Big('99.9'), big: new Big('18446744073709.551615'), n: 2 })).toBe(
      '{"net_amount":99.9,"big":18446744073709.551615,"n":2}',
    );
  });
});
