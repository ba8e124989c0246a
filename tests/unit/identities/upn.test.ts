import { isUpnShaped, sameUpn, upnKey, upnKeysOf } from '../../../lib/identities/upn';

const KELVIN = '\u212A';

describe("isUpnShaped: a UPN in Entra's character set", () => {
  it.each([
    'anna@corp.example',
    'Anna.Berg@Corp.Example',
    'a@b.c',
    "o'neil_partner.example#EXT#@corp.onmicrosoft.com", // a guest
    "a.b-c_d!e#f^g~h'i@sub-1.corp.example", // every allowed character
    `${'u'.repeat(1011)}@corp.example`, // exactly 1024 characters
  ])('accepts %j', (upn) => {
    expect(isUpnShaped(upn)).toBe(true);
  });

  // Entra allows A-Z a-z 0-9 ' . - _ ! # ^ ~ only: a look-alike letter would fold to ASCII with toLowerCase.
  it.each([
    [`${KELVIN}arl@dev.example.com`, 'the Kelvin sign (U+212A), which toLowerCase turns into k'],
    ['ænne@corp.example', 'a letter outside ASCII'],
    ['anna@corp.exampl\u0435', 'a Cyrillic e in the domain'],
    ['\uff41nna@corp.example', 'a fullwidth a'],
    ['first+tag@sub.corp.example', 'a plus sign'],
    ['a&b@corp.example', 'an ampersand'],
    ['a%b@corp.example', 'a percent sign'],
    ['"anna"@corp.example', 'quotes'],
    ['anna.@corp.example', 'a dot right before the @'],
  ])('rejects %j: %s', (upn) => {
    expect(isUpnShaped(upn)).toBe(false);
  });

  // Cases on which SCIM saves and the association disagreed before the rule had one owner.
  it.each([
    ['a@localhost', 'a domain without a dot'],
    ['a\u0001@corp.example', 'a C0 control character'],
    ['a\u007f@corp.example', 'DEL'],
    ['a\u0085@corp.example', 'NEL, a C1 control character'],
    ['a@corp\u0000.example', 'NUL in the domain'],
    ['a@corp..example', 'an empty domain label'],
  ])('rejects %j: %s', (upn) => {
    expect(isUpnShaped(upn)).toBe(false);
  });

  it.each([
    '',
    'anna',
    '@corp.example',
    'anna@',
    'anna@@corp.example',
    'an na@corp.example',
    'anna@corp.example ',
    'anna\u00a0@corp.example',
    'anna@.example',
    'anna@corp.',
    'anna@corp.example\n',
    `${'u'.repeat(1012)}@corp.example`, // 1025 characters
  ])('rejects %j', (upn) => {
    expect(isUpnShaped(upn)).toBe(false);
  });

  it('is linear on long hostile input', () => {
    expect(isUpnShaped(`a@${'b.'.repeat(500)}`)).toBe(false);
    expect(isUpnShaped(`${'a@'.repeat(500)}`)).toBe(false);
    expect(isUpnShaped(`${'a.'.repeat(500)}@`)).toBe(false);
  });
});

describe('upnKey and sameUpn: ASCII case only', () => {
  it('folds A-Z to a-z and nothing else', () => {
    expect(upnKey("Anna.O'Neil#EXT#@Corp.Example")).toBe("anna.o'neil#ext#@corp.example");
    expect(upnKey('ABCDEFGHIJKLMNOPQRSTUVWXYZ@X.Y')).toBe('abcdefghijklmnopqrstuvwxyz@x.y');
  });

  it.each([
    [`${KELVIN}arl@dev.example.com`, 'the Kelvin sign'],
    ['\u0130da@dev.example.com', 'a dotted capital I (toLowerCase: i and a combining dot)'],
    ['\u00c6nne@corp.example', 'Æ'],
    ['\u0410nna@corp.example', 'a Cyrillic A'],
  ])('leaves %j as it is (%s)', (upn) => {
    expect(upnKey(upn)).toBe(upn.replace(/[A-Z]/g, (c) => c.toLowerCase()));
    expect(upnKey(upn)).not.toBe(upn.toLowerCase());
  });

  it('never makes a Kelvin-sign UPN the same as the ASCII one', () => {
    expect(sameUpn(`${KELVIN}arl@dev.example.com`, 'karl@dev.example.com')).toBe(false);
    expect(sameUpn(`${KELVIN}ARL@DEV.EXAMPLE.COM`, 'karl@dev.example.com')).toBe(false);
    expect(sameUpn('KARL@Dev.Example.com', 'karl@dev.example.com')).toBe(true);
  });

  it('an absent UPN is the same as none', () => {
    expect(sameUpn(undefined, 'a@b.c')).toBe(false);
    expect(sameUpn('a@b.c', undefined)).toBe(false);
    expect(sameUpn(undefined, undefined)).toBe(false);
  });
});

describe('upnKeysOf', () => {
  it('keys the UPNs given, skips absent ones and keeps each key once, in order', () => {
    expect(upnKeysOf(['Anna@Corp.Example', undefined, 'anna@corp.example', 'B@Corp.Example'])).toEqual([
      'anna@corp.example',
      'b@corp.example',
    ]);
    expect(upnKeysOf([undefined, undefined])).toEqual([]);
  });
});
