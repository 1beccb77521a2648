/**
 * A minimal SMTP receiver on loopback for the e2e tests: accepts every message (no TLS, no
 * auth) and keeps the decoded bodies, so flows that send email (password reset) can be
 * followed against the real control plane.
 */
import { createServer, type Server } from 'node:net';

export interface SmtpSink {
  port: number;
  messages: string[];
  close: () => Promise<void>;
}

function decodeBody(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const headers = raw.slice(0, split).toLowerCase();
  const body = raw.slice(split + 4);
  if (headers.includes('content-transfer-encoding: base64')) {
    return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  }
  if (headers.includes('content-transfer-encoding: quoted-printable')) {
    return body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
  return body;
}

export function startSmtpSink(): Promise<SmtpSink> {
  const messages: string[] = [];
  const server: Server = createServer((socket) => {
    let inData = false;
    let buffer = '';
    let data = '';
    socket.write('220 e2e-sink ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          data += buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          messages.push(decodeBody(data.replace(/\r\n\.\./g, '\r\n.')));
          data = '';
          socket.write('250 OK queued\r\n');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') socket.write('250-e2e-sink\r\n250 8BITMIME\r\n');
        else if (verb === 'HELO') socket.write('250 e2e-sink\r\n');
        else if (verb === 'DATA') {
          inData = true;
          socket.write('354 End data with <CR><LF>.<CR><LF>\r\n');
        } else if (verb === 'QUIT') {
          socket.end('221 Bye\r\n');
          return;
        } else socket.write('250 OK\r\n');
      }
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      resolve({ port, messages, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}

/** The verification code of the last email received (the server puts it in <strong>). */
export function lastCode(sink: SmtpSink): string | undefined {
  return sink.messages.at(-1)?.match(/<strong>([^<]+)<\/strong>/)?.[1];
}
