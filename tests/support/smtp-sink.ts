/**
 * A real SMTP server on 127.0.0.1 (smtp-server) that keeps what it receives, decoded with
 * mailparser, and can be told to refuse a step with a 4xx or 5xx reply or to require AUTH. A
 * message is in `received` before the sink answers 250 to its DATA, so a test that has its
 * `sent` has the message too. Also a server that accepts connections and never greets.
 */
import net from 'node:net';
import { type AddressObject, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  /** The user that signed in, when the sink required AUTH. */
  user: string | undefined;
  /** The From header's address and display name. */
  from: { address: string; name: string };
  /** The To header's addresses. */
  to: string[];
  subject: string;
  text: string;
  html: string;
}

/** An answer the sink gives instead of accepting: at one step, for one recipient or all. */
export interface SmtpRefusal {
  at: 'MAIL FROM' | 'RCPT TO' | 'DATA';
  code: number;
  message: string;
  /** Only at RCPT TO: refuse this address alone. */
  recipient?: string;
}

export interface SmtpSinkOptions {
  /** Require AUTH (PLAIN or LOGIN, allowed without TLS on loopback) with these credentials. */
  auth?: { user: string; password: string };
  /** A wrong password's 535 repeats the password offered, as a careless server might. */
  echoWrongPassword?: boolean;
}

export interface SmtpSink {
  port: number;
  /** `smtp://[user:password@]127.0.0.1:<port>` for the environment. */
  url(credentials?: { user: string; password: string }): string;
  received: ReceivedMail[];
  /** Set to refuse from now on; undefined accepts again. */
  refusal: SmtpRefusal | undefined;
  close(): Promise<void>;
}

function refusedWith(refusal: SmtpRefusal): Error {
  return Object.assign(new Error(refusal.message), { responseCode: refusal.code });
}

function addressesOf(header: AddressObject | AddressObject[] | undefined): string[] {
  const objects = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return objects.flatMap((object) => object.value.map((entry) => entry.address ?? ''));
}

export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const sink: Omit<SmtpSink, 'port' | 'close'> = {
    url: (credentials) =>
      `smtp://${credentials ? `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@` : ''}127.0.0.1:${port}`,
    received,
    refusal: undefined,
  };
  const refusalAt = (at: SmtpRefusal['at'], recipient?: string) => {
    const refusal = sink.refusal;
    if (refusal?.at !== at) return null;
    if (refusal.recipient !== undefined && refusal.recipient !== recipient) return null;
    return refusedWith(refusal);
  };
  const server = new SMTPServer({
    logger: false,
    // A self-signed STARTTLS would fail nodemailer's certificate check; plain text on loopback.
    disabledCommands: options.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !options.auth,
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      const wanted = options.auth;
      if (wanted && auth.username === wanted.user && auth.password === wanted.password) {
        callback(null, { user: auth.username });
        return;
      }
      const echo = options.echoWrongPassword ? ` (${auth.username}:${auth.password})` : '';
      callback(Object.assign(new Error(`Authentication failed${echo}`), { responseCode: 535 }));
    },
    onMailFrom(_address, _session, callback) {
      callback(refusalAt('MAIL FROM'));
    },
    onRcptTo(address, _session, callback) {
      callback(refusalAt('RCPT TO', address.address));
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          const refusal = refusalAt('DATA');
          if (refusal) return callback(refusal);
          const from = mail.from?.value[0];
          received.push({
            envelope: {
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            },
            user: typeof session.user === 'string' ? session.user : undefined,
            from: { address: from?.address ?? '', name: from?.name ?? '' },
            to: addressesOf(mail.to),
            subject: mail.subject ?? '',
            text: mail.text ?? '',
            html: typeof mail.html === 'string' ? mail.html : '',
          });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as net.AddressInfo).port;
  return Object.assign(sink, {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** A server that accepts connections and never says a word: the greeting never comes. */
export async function startSilentServer(): Promise<{
  port: number;
  /** Connections open now. */
  connections(): number;
  close(): Promise<void>;
}> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {}); // the client gives up and resets: expected
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port that nothing listens on: connecting is refused. */
export async function refusedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
