/** Where afterstop's file exporter writes unless told otherwise: AFTERSTOP_TRACES_DIR, else ./afterstop-traces (and where leak-report reads by default). */
export const defaultTracesDir = (env: NodeJS.ProcessEnv = process.env): string => env['AFTERSTOP_TRACES_DIR'] || 'afterstop-traces';
