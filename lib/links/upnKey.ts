/**
 * The normalized UPN a pending or conflict identity waits for, stored as `link.upnKey` (indexed), so a
 * directory change is matched with one indexed query instead of a scan of pending identities.
 * Directory UPNs compare case-insensitively.
 */
export function upnKey(upn: string): string {
  return upn.toLowerCase();
}
