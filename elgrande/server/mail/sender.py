"""Sending one email over SMTP (smtplib), with the settings' server and login. The
password is never logged (create_app adds it to the log redaction)."""

from __future__ import annotations

import smtplib
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

TIMEOUT = 20.0


@dataclass(frozen=True)
class SmtpSender:
    host: str
    port: int
    user: str = ""
    password: str = field(default="", repr=False)
    starttls: bool = True
    mail_from: str = "El Grande <noreply@localhost>"

    def message(self, to: str, subject: str, body: str,
                unsubscribe_url: str | None = None) -> EmailMessage:
        message = EmailMessage()
        message["From"] = self.mail_from
        message["To"] = to
        message["Subject"] = subject
        message["Date"] = formatdate(localtime=False)
        message["Message-ID"] = make_msgid(domain="elgrande")
        if unsubscribe_url:  # RFC 8058: mail clients offer one-click unsubscribe
            message["List-Unsubscribe"] = f"<{unsubscribe_url}>"
            message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        message.set_content(body)
        return message

    def send(self, message: EmailMessage) -> None:
        """Raises OSError or smtplib.SMTPException when the email was not accepted."""
        with smtplib.SMTP(self.host, self.port, timeout=TIMEOUT) as smtp:
            if self.starttls:
                smtp.starttls()
            if self.user:
                smtp.login(self.user, self.password)
            smtp.send_message(message)
