"""Email notifications: address confirmation, "your turn" emails, the daily digest.

Nothing is sent in a request: emails go to the ``mail_outbox`` table and a background
thread (``worker.MailWorker``) sends them over SMTP, with retries. Without
``smtp_host`` the whole feature is off (``Mailer`` is None in the services)."""

from .mailer import Mailer, MailRefused

__all__ = ["MailRefused", "Mailer"]
