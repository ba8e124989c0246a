/**
 * User principal names: the one shape an asserted UPN must have, and the one way two UPNs are compared.
 *
 * Entra ID allows only these characters in a UPN: A–Z a–z 0–9 ' . - _ ! # ^ ~ (Microsoft Learn, "Password
 * policies and account restrictions in Microsoft Entra ID", username policies; the same list is on the
 * userPrincipalName property of Microsoft Graph's user resource), with one @ between the name and the domain
 * and no "." right before it. A UPN outside that set can belong to no directory user, so it is refused where
 * it comes in and never sent to the directory.
 *
 * Entra compares UPNs without regard to case. A UPN is ASCII, so only A–Z fold to a–z, here and nowhere
 * else: `toLowerCase` would also turn look-alike letters into ASCII (the Kelvin sign U+212A into "k"),
 * and link "\u212Aarl@…" to the user karl@….
 */

/** The longest UPN kept (Entra's own limit is lower; this bounds what a request can make us hold). */
export const MAX_UPN_LENGTH = 1024;

/**
 * name@domain in Entra's character set: the domain has at least one dot and no empty label, the name does
 * not end with a dot. Labels exclude dots, so the match is linear on long input.
 */
const UPN_SHAPE = /^[A-Za-z0-9'._!#^~-]*[A-Za-z0-9'_!#^~-]@[A-Za-z0-9'_!#^~-]+(?:\.[A-Za-z0-9'_!#^~-]+)+$/;

export function isUpnShaped(upn: string): boolean {
  return upn.length <= MAX_UPN_LENGTH && UPN_SHAPE.test(upn);
}

/** The UPN with A–Z folded to a–z, nothing else changed: two UPNs are the same UPN when their keys are equal. */
export function upnKey(upn: string): string {
  return upn.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** The distinct keys of the UPNs given (absent ones skipped), in their order: what searches by UPN compare. */
export function upnKeysOf(upns: ReadonlyArray<string | undefined>): string[] {
  return [...new Set(upns.filter((u): u is string => u !== undefined).map(upnKey))];
}

export function sameUpn(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && b !== undefined && upnKey(a) === upnKey(b);
}
