/** The store's folder unless --db says otherwise. Its own module: naming it loads no engine (report-source.ts, store-source.ts). */
export const DEFAULT_DB = 'afterstop-store';
