/**
 * `host.id` as resources 2.x's hostDetector reads it, asynchronously: /etc/machine-id on Linux, the
 * IOPlatformUUID on macOS, /etc/hostid or the SMBIOS uuid on FreeBSD, the MachineGuid on Windows.
 * undefined when none is found (said at debug level, as the SDK does).
 */
import { diag } from '@opentelemetry/api';
import { promises as fs } from 'node:fs';

async function run(command: string): Promise<string> {
  const [{ exec }, { promisify }] = await Promise.all([import('node:child_process'), import('node:util')]);
  return (await promisify(exec)(command)).stdout;
}

const notFound = (error: unknown): undefined => {
  diag.debug(`error reading machine id: ${String(error)}`);
  return undefined;
};

async function linux(): Promise<string | undefined> {
  for (const file of ['/etc/machine-id', '/var/lib/dbus/machine-id']) {
    try {
      return (await fs.readFile(file, { encoding: 'utf8' })).trim();
    } catch (error) {
      notFound(error);
    }
  }
  return undefined;
}

async function darwin(): Promise<string | undefined> {
  try {
    const line = (await run('ioreg -rd1 -c "IOPlatformExpertDevice"')).split('\n').find((l) => l.includes('IOPlatformUUID'));
    const parts = line?.split('" = "');
    return parts?.length === 2 ? parts[1]!.slice(0, -1) : undefined;
  } catch (error) {
    return notFound(error);
  }
}

async function bsd(): Promise<string | undefined> {
  try {
    return (await fs.readFile('/etc/hostid', { encoding: 'utf8' })).trim();
  } catch (error) {
    notFound(error);
  }
  try {
    return (await run('kenv -q smbios.system.uuid')).trim();
  } catch (error) {
    return notFound(error);
  }
}

async function windows(): Promise<string | undefined> {
  let command = '%windir%\\System32\\REG.exe';
  if (process.arch === 'ia32' && 'PROCESSOR_ARCHITEW6432' in process.env) command = `%windir%\\sysnative\\cmd.exe /c ${command}`;
  try {
    const parts = (await run(`${command} QUERY HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Cryptography /v MachineGuid`)).split('REG_SZ');
    return parts.length === 2 ? parts[1]!.trim() : undefined;
  } catch (error) {
    return notFound(error);
  }
}

export function machineId(): Promise<string | undefined> {
  switch (process.platform) {
    case 'linux':
      return linux();
    case 'darwin':
      return darwin();
    case 'freebsd':
      return bsd();
    case 'win32':
      return windows();
    default:
      return Promise.resolve(notFound(new Error(`no machine id on ${process.platform}`)));
  }
}
