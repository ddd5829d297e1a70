import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * Servers that misbehave as a hostile or broken one may, for the CLI's tests: one that answers every
 * request with an error whose body echoes the request whole (its headers, Authorization included), and
 * one that trickles its answer a byte a second and never ends it.
 */
export interface LocalServer {
  url: string;
  /** Requests it received (method, URL and headers), in order. */
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders }[];
  close: () => Promise<void>;
}

async function listen(server: net.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Every request answered `status`, its body `extra` then the request echoed: headers, request line, body. */
export async function echoingServer(status = 500, extra = ''): Promise<LocalServer> {
  const requests: LocalServer['requests'] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      const headers = Object.entries(req.headers)
        .map(([k, v]) => `${k}: ${String(v)}`)
        .join('\n');
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(`${extra}bad request:\n${headers}\n${req.method} ${req.url} HTTP/1.1\n\n${body.slice(0, 200)}`);
    });
  });
  const url = await listen(server);
  return { url, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Every connection answered a byte a second, forever: the status line itself never completes. */
export async function tricklingServer(): Promise<LocalServer> {
  const requests: LocalServer['requests'] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    requests.push({ method: '', url: '', headers: {} });
    const text = 'HTTP/1.1 200 OK\r\nX-Slow: ' + 'a'.repeat(1_000_000);
    let i = 0;
    const timer = setInterval(() => socket.write(text[i++ % text.length]!), 1000);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      sockets.delete(socket);
    });
  });
  const url = await listen(server);
  return {
    url,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
