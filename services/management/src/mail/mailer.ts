// Outgoing e-mail through the operator's SMTP server (SMTP_URL, nodemailer). Without SMTP_URL there is
// no mailer, and what would be mailed is shown to the person who caused it instead (an invitation's
// link to its inviter). A message either reaches the SMTP server within the timeouts or the send
// rejects: the caller undoes what the message was for.
import nodemailer from "nodemailer";

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

/** How long one step of talking to the SMTP server may take: a request waits on it. */
const SMTP_TIMEOUT_MS = 10_000;

/** Header values are one line: a name a user chose must not start a header of its own. */
const oneLine = (value: string) => value.replace(/[\r\n]+/g, " ");

export function createMailer(config: { SMTP_URL?: string | undefined; MAIL_FROM: string }): Mailer | null {
  if (!config.SMTP_URL) return null;
  const transport = nodemailer.createTransport({
    url: config.SMTP_URL,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  });
  return {
    async send(mail) {
      await transport.sendMail({
        from: config.MAIL_FROM,
        to: mail.to,
        subject: oneLine(mail.subject),
        text: mail.text,
      });
    },
    close: () => transport.close(),
  };
}
