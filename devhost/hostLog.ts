/** Where the dev host and its queue triggers write their own lines (not the functions' logs). */
export type HostLog = (level: 'info' | 'warn' | 'error', message: string) => void;
