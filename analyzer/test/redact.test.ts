import { describe, expect, it } from 'vitest';
import { redactSecrets, redactUrl, serverText } from '../redact.js';

describe('redaction of what afterstop prints about a server', () => {
  it('masks a URL’s password and credential parameters, and leaves a URL without any as given', () => {
    expect(redactUrl('http://u:p4ss@h:8123/')).toBe('http://u:***@h:8123/');
    expect(redactUrl('http://h:8123/?user=reader&password=p4ss&database=otel')).toBe('http://h:8123/?user=reader&password=***&database=otel');
    expect(redactUrl('http://h:9091')).toBe('http://h:9091');
    expect(redactUrl('http://u:%zz@h/')).not.toContain('%zz');
  });

  it('masks credential headers and tokens a server echoes, whatever their case', () => {
    const echoed = 'PUT /x HTTP/1.1\nAuthorization: Basic dXNlcjpwYXNz\nX-ClickHouse-Key: k3y\ncookie: a=b\nhost: h';
    const out = redactSecrets(echoed);
    expect(out).not.toMatch(/dXNlcjpwYXNz|k3y|a=b/);
    expect(out).toContain('host: h');
    expect(redactSecrets('token Bearer abc.def-ghi used')).toBe('token Bearer *** used');
  });

  it('a server’s text is one line, cut, its control characters shown as U+FFFD', () => {
    const text = serverText(`a\nb\u001b[2J${'x'.repeat(1000)}`, 50);
    expect(text).not.toContain('\n');
    expect(text).not.toContain('\u001b');
    expect([...text].length).toBeLessThan(100);
    expect(text).toContain('more characters not shown');
  });
});
