/** klend's instruction layouts, and which `cpi_data` a venue accepts. */
import {
  KLEND_INSTRUCTIONS,
  MAX_CPI_DATA,
  checkKlendCpiData,
  cpiDataBytes,
  klendInstructionData,
} from './klend';
import { VenueDataRejected } from './port';

describe("klend's instruction layouts", () => {
  it("are Anchor's: sha256('global:<name>')[0..8], as klend's published IDL lists them", () => {
    expect([...KLEND_INSTRUCTIONS.deposit.discriminator]).toEqual([169, 201, 30, 126, 6, 205, 102, 68]);
    expect([...KLEND_INSTRUCTIONS.withdraw.discriminator]).toEqual([234, 117, 181, 125, 185, 142, 220, 29]);
    expect([...KLEND_INSTRUCTIONS.refresh.discriminator]).toEqual([2, 218, 138, 235, 79, 201, 25, 102]);
  });

  it('carry the amount as a little-endian u64 after the discriminator', () => {
    const data = klendInstructionData('deposit', 1_000_000n);
    expect(data.length).toBe(16);
    expect([...data.subarray(8)]).toEqual([0x40, 0x42, 0x0f, 0, 0, 0, 0, 0]);
  });
});

describe('cpi_data', () => {
  const refused = (f: () => unknown) => {
    let caught: unknown;
    try {
      f();
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(VenueDataRejected);
    expect((caught as VenueDataRejected).reason).toBe('cpi_data');
    return (caught as Error).message;
  };

  it('is accepted absent, empty, or as the klend instruction of the same action and amount', () => {
    expect(() => checkKlendCpiData('deposit', undefined, 5n)).not.toThrow();
    expect(() => checkKlendCpiData('deposit', new Uint8Array(), 5n)).not.toThrow();
    expect(() => checkKlendCpiData('deposit', klendInstructionData('deposit', 5n), 5n)).not.toThrow();
    expect(() => checkKlendCpiData('withdraw', klendInstructionData('withdraw', 7n), 7n)).not.toThrow();
  });

  it('is refused with a reason for any other layout', () => {
    expect(refused(() => checkKlendCpiData('deposit', klendInstructionData('deposit', 6n), 5n))).toMatch(
      /amount 6 is not the request's amount 5/,
    );
    expect(refused(() => checkKlendCpiData('deposit', klendInstructionData('withdraw', 5n), 5n))).toMatch(
      /redeem_reserve_collateral, not deposit_reserve_liquidity/,
    );
    expect(refused(() => checkKlendCpiData('withdraw', klendInstructionData('deposit', 5n), 5n))).toMatch(
      /deposit_reserve_liquidity, not redeem_reserve_collateral/,
    );
    expect(refused(() => checkKlendCpiData('deposit', new Uint8Array([1, 2, 3]), 5n))).toMatch(
      /not an instruction layout this venue knows/,
    );
    const longer = new Uint8Array(17);
    longer.set(klendInstructionData('deposit', 5n));
    expect(refused(() => checkKlendCpiData('deposit', longer, 5n))).toMatch(/16 bytes/);
    expect(refused(() => checkKlendCpiData('deposit', KLEND_INSTRUCTIONS.deposit.discriminator, 5n))).toMatch(
      /16 bytes/,
    );
    expect(refused(() => checkKlendCpiData('deposit', KLEND_INSTRUCTIONS.refresh.discriminator, 5n))).toMatch(
      /not an instruction layout/,
    );
  });

  it('is read from a request as bytes 0-255, at most a transaction long', () => {
    expect(cpiDataBytes(undefined)).toBeUndefined();
    expect([...cpiDataBytes([0, 255, 7])!]).toEqual([0, 255, 7]);
    expect(cpiDataBytes(new Array(MAX_CPI_DATA).fill(1))!.length).toBe(MAX_CPI_DATA);
    refused(() => cpiDataBytes(new Array(MAX_CPI_DATA + 1).fill(1)));
    expect(refused(() => cpiDataBytes([0, 256]))).toMatch(/cpi_data\[1\]/);
    refused(() => cpiDataBytes([-1]));
    refused(() => cpiDataBytes([1.5]));
    refused(() => cpiDataBytes(['1']));
    refused(() => cpiDataBytes('0102'));
  });
});
