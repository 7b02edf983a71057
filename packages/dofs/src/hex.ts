const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += HEX[byte];
  return out;
}

/** Parses lowercase or uppercase hex; throws TypeError on anything else. */
export function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new TypeError(`not a hex string: ${hex.slice(0, 80)}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Each char code's nibble, or -1 for a code that is no hex digit (codes past 127 are none). */
const NIBBLE = Int8Array.from({ length: 128 }, (_, code) => {
  const char = String.fromCharCode(code);
  return /[0-9a-fA-F]/.test(char) ? Number.parseInt(char, 16) : -1;
});

/**
 * Parses `hex` into `into` at `at`, allocating nothing: the wire's chunk
 * hashes are written straight into one shared buffer. Throws TypeError on a
 * char that is no hex digit or an odd length.
 */
export function hexInto(hex: string, into: Uint8Array, at: number): void {
  if (hex.length % 2 !== 0 || at + hex.length / 2 > into.length)
    throw new TypeError(`not a hex string: ${hex.slice(0, 80)}`);
  for (let i = 0; i < hex.length; i += 2) {
    const high = NIBBLE[hex.charCodeAt(i)] ?? -1;
    const low = NIBBLE[hex.charCodeAt(i + 1)] ?? -1;
    if (high < 0 || low < 0) throw new TypeError(`not a hex string: ${hex.slice(0, 80)}`);
    into[at + i / 2] = (high << 4) | low;
  }
}
