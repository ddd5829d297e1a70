/** afterstop's version, recorded as the instrumentation scope version. A test keeps it equal to package.json's. */
export const VERSION = '0.1.0';
