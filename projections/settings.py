"""Configuration, from environment variables prefixed ``EMISSARY_`` (see README, Configuration)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlparse

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Every setting has a default that runs the embedded service with no external services."""

    # hide_input_in_errors: a refused setting's message never echoes the values given (the database's password).
    model_config = SettingsConfigDict(
        env_prefix="EMISSARY_", env_file=".env", extra="ignore", hide_input_in_errors=True
    )

    env: str = "development"
    data_dir: Path = Path("data")
    database_url: str = ""  # empty: SQLite file in data_dir; or postgresql://user:pass@host:port/db
    # The PostgreSQL password apart from the URL, as it is (no URL-encoding): deploy/docker-compose.yml passes
    # POSTGRES_PASSWORD so, whatever characters it holds. Empty: the URL's own (URL-encoded) password, if any.
    database_password: SecretStr = SecretStr("")
    # PostgreSQL connections per process: each process has one event-store pool (pool size kept open,
    # up to max overflow more under load) and one read-model pool (one kept open, up to its size).
    db_pool_size: int = Field(2, ge=1)
    db_max_overflow: int = Field(3, ge=0)
    readmodel_pool_size: int = Field(3, ge=1)
    host: str = "127.0.0.1"
    port: int = 8000
    snapshot_interval: int = 100
    aggregate_cache_size: int = 1000
    command_retries: int = 8
    # Threads per process that run commands for the API's event loop (api.deps.Sender): at most this many
    # commands of one process are under way at once, the rest wait their turn.
    command_threads: int = Field(32, ge=1)
    broker_url: str = "memory://"
    sweep_seconds: float = 5.0
    eta_lookahead_seconds: float = 120.0
    claim_seconds: float = 30.0
    projector_poll_seconds: float = 0.5
    # True: the process that records events brings the read models up to date before it answers, so a read
    # right after a write sees it (the default outside production, where nothing else projects). False: a
    # projection runner keeps them (production's projector service); reads may lag, and a client waits for
    # its own write with ``wait_for=<receipt sequence>`` (up to read_wait_seconds). Unset: False in production,
    # where API processes projecting beside the runner would serialise every command on the projector's lock.
    read_models_sync: bool | None = None
    read_wait_seconds: float = 5.0
    watchdog_stall_seconds: float = 30.0
    embedded_workers: bool = True
    public_url: str = ""  # empty (embedded): links and origin checks follow each request's own address
    secret_key: str = "dev-only-not-secret"
    session_ttl_hours: float = 14 * 24
    body_limit_bytes: int = 1_000_000
    upload_body_limit_bytes: int = 10_000_000  # mail intake and /verify
    ratelimit_storage_url: str = "memory://"  # or redis://host:6379/0 (shared by every process)
    ratelimit_key_prefix: str = "emissary"
    ratelimit_auth_failures: str = "30/minute"
    ratelimit_create_game: str = "20/minute"
    ratelimit_mail: str = "60/minute"
    ratelimit_verify: str = "30/minute"
    ratelimit_signin_mail: str = "10/minute"  # sign-in links asked for, per client address
    ratelimit_invitations: str = "30/hour"  # invitations sent (to a seat or to observe), per client address
    ratelimit_lobby_takes: str = "10/hour"  # open seats taken from the lobby, per client address
    # Signing in by email (issue 17): a link works once, for this long; an address gets at most so many a window.
    signin_link_minutes: float = Field(30, gt=0)
    signin_links_per_address: int = Field(3, ge=1)
    signin_window_minutes: float = Field(60, gt=0)
    mail_domain: str = "emissary.local"
    mail_from: str = "Emissary <noreply@emissary.local>"
    smtp_host: str = "127.0.0.1"
    smtp_port: int = 25
    smtp_tls: str = "none"  # none | starttls | ssl
    smtp_user: str = ""
    smtp_password: str = ""
    smtpd_host: str = "127.0.0.1"
    smtpd_port: int = 2525
    inbound_key: str = ""
    # /metrics (issue 27): a bearer key; empty: served only to 127.0.0.1 outside production, never in production
    metrics_key: str = ""
    # Per-game webhooks (issue 31, application.webhooks): a URL whose host resolves to a private, loopback,
    # link-local or otherwise non-public address is refused unless the operator allows it (tests do, for their
    # own receiver on loopback); a URL that fails this many deliveries in a row is paused and its GM told.
    webhooks_allow_private: bool = False
    webhook_pause_after: int = Field(8, ge=1)
    webhook_timeout_seconds: float = Field(10, gt=0)
    # Push to phones (issue 31, application.push): the VAPID key that signs every push (a PEM, or the raw key in
    # base64url; empty: in production derived from secret_key, elsewhere made on first use and kept in data_dir),
    # whom push services may write to (empty: mailto:postmaster@<mail_domain>); an
    # endpoint whose host is not public is refused unless allowed (tests, for their stand-in push service).
    vapid_private_key: SecretStr = SecretStr("")
    vapid_subject: str = ""
    push_allow_private: bool = False
    push_timeout_seconds: float = Field(10, gt=0)
    push_ttl_seconds: int = Field(86400, ge=0)  # how long a push service keeps a push for a device that is offline
    # Every process's log level (projections.logs): secrets are redacted at any level.
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"

    @field_validator("log_level", mode="before")
    @classmethod
    def _level(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @field_validator("env")
    @classmethod
    def _known_env(cls, value: str) -> str:
        if value not in ("development", "test", "production"):
            raise ValueError("EMISSARY_ENV is development, test or production")
        return value

    @field_validator("public_url")
    @classmethod
    def _public_url_is_a_url(cls, value: str) -> str:
        if value and (urlparse(value).scheme not in ("http", "https") or not urlparse(value).netloc):
            raise ValueError("EMISSARY_PUBLIC_URL is an http(s)://host[:port] address")
        return value.rstrip("/")

    @field_validator(
        "ratelimit_auth_failures",
        "ratelimit_create_game",
        "ratelimit_mail",
        "ratelimit_verify",
        "ratelimit_signin_mail",
        "ratelimit_invitations",
        "ratelimit_lobby_takes",
    )
    @classmethod
    def _rate_limit(cls, value: str) -> str:
        from limits import parse_many

        try:
            parse_many(value)
        except ValueError as exc:
            raise ValueError(f"a rate limit is written like '30/minute' or '5/second;100/hour': {exc}") from None
        return value

    @model_validator(mode="after")
    def _database_url_parses(self) -> Settings:
        """A PostgreSQL URL whose password was put in unescaped (a ``/``, ``#`` or ``?`` that cuts the URL short)
        is refused, saying so, without the URL in the message: it holds the password. A ``%`` in a URL is read as
        an escape, as URLs are (``p%41ss`` is ``pAss``): a password holding one is URL-encoded or given, as it is,
        in EMISSARY_DATABASE_PASSWORD. A URL without a host (``postgresql:///emissary``: the local socket) is
        accepted."""
        if not self.is_postgres:
            return self
        url = urlparse(self.database_url)
        try:
            port = url.port
        except ValueError:
            port = -1
        if (
            port == -1
            or url.fragment
            or "@" in url.query
            or "@" in url.path
            or (not url.hostname and "@" in url.netloc)
        ):
            raise ValueError(
                "EMISSARY_DATABASE_URL is not a valid postgresql://user:password@host:port/database URL: "
                "URL-encode the password (urllib.parse.quote(password, safe='')) or give it, as it is, "
                "in EMISSARY_DATABASE_PASSWORD"
            )
        if url.password is not None and self.database_password.get_secret_value():
            raise ValueError(
                "EMISSARY_DATABASE_URL holds a password and EMISSARY_DATABASE_PASSWORD gives one too: give it once"
            )
        return self

    @model_validator(mode="after")
    def _no_placeholder_in_production(self) -> Settings:
        # deploy/.env.example marks what must be filled in with `change-me`: refuse to run with one left.
        if self.env == "production":
            left = [
                f"EMISSARY_{name.upper()}"
                for name, value in self.model_dump().items()
                if isinstance(value, str | SecretStr)
                and "change-me" in (value.get_secret_value() if isinstance(value, SecretStr) else value)
            ]
            if left:
                raise ValueError(f"{', '.join(left)}: replace the placeholder 'change-me' (deploy/.env.example)")
        return self

    @model_validator(mode="after")
    def _production_is_configured(self) -> Settings:
        if self.env == "production":
            if not self.is_postgres:
                raise ValueError("EMISSARY_ENV=production needs EMISSARY_DATABASE_URL=postgresql://...")
            if "change-me" in self.database_url:
                raise ValueError("EMISSARY_DATABASE_URL still holds the placeholder password 'change-me'")
            if self.secret_key in ("dev-only-not-secret", "change-me") or len(self.secret_key) < 32:
                raise ValueError("EMISSARY_SECRET_KEY must be set to 32+ random characters in production")
            if not self.public_url:
                raise ValueError(
                    "EMISSARY_PUBLIC_URL must be set in production (https://your.host): it is "
                    "the address in sign-in links and the only origin forms are accepted from"
                )
            if self.ratelimit_storage_url.startswith("memory"):
                raise ValueError(
                    "EMISSARY_RATELIMIT_STORAGE_URL must be redis://... in production, so that "
                    "every server process counts against the same limits"
                )
        return self

    @model_validator(mode="after")
    def _inbound_mail_is_keyed(self) -> Settings:
        # /inbound/email and /inbound/bounce take mail from anyone who knows the key: never open in production.
        if self.env == "production" and (len(self.inbound_key) < 16 or "change-me" in self.inbound_key):
            raise ValueError(
                "EMISSARY_INBOUND_KEY must be set to 16+ random characters in production "
                "(the key your mail provider sends in X-Emissary-Inbound-Key)"
            )
        return self

    @property
    def auto_migrate(self) -> bool:
        """Development and tests create and migrate the schema when they open it; production does not
        (run ``emissary migrate`` first)."""
        return self.env != "production"

    @property
    def syncs_read_models(self) -> bool:
        """Whether the process that records a command also brings the read models up to date (see above)."""
        return self.read_models_sync if self.read_models_sync is not None else self.env != "production"

    @property
    def base_url(self) -> str:
        """The service's own address in what it sends (mails, webhooks): EMISSARY_PUBLIC_URL, else the address
        it listens on."""
        return (self.public_url or f"http://{self.host}:{self.port}").rstrip("/")

    @property
    def is_postgres(self) -> bool:
        return self.database_url.startswith(("postgresql://", "postgres://"))

    def eventsourcing_env(self) -> dict[str, str]:
        """The eventsourcing environment that selects and configures the event store."""
        env = {
            "AGGREGATE_CACHE_MAXSIZE": str(self.aggregate_cache_size),
            "AGGREGATE_CACHE_FASTFORWARD": "y",
            "IS_SNAPSHOTTING_ENABLED": "y",
            # Production: `emissary migrate` creates the tables, never a request or a starting process.
            "CREATE_TABLE": "n" if self.env == "production" else "y",
        }
        if self.is_postgres:
            url = urlparse(self.database_url)
            env.update(
                {
                    "PERSISTENCE_MODULE": "eventsourcing.postgres",
                    "POSTGRES_DBNAME": url.path.lstrip("/") or "emissary",
                    "POSTGRES_HOST": url.hostname or "127.0.0.1",
                    "POSTGRES_PORT": str(url.port or 5432),
                    "POSTGRES_USER": unquote(url.username or "postgres"),
                    "POSTGRES_PASSWORD": self.database_password.get_secret_value() or unquote(url.password or ""),
                    "POSTGRES_POOL_SIZE": str(self.db_pool_size),
                    "POSTGRES_MAX_OVERFLOW": str(self.db_max_overflow),
                    "POSTGRES_CONN_MAX_AGE": "600",
                    "POSTGRES_PRE_PING": "n",
                    "POSTGRES_LOCK_TIMEOUT": "5",
                }
            )
            query = dict(part.split("=", 1) for part in url.query.split("&") if "=" in part)
            if "schema" in query:
                env["POSTGRES_SCHEMA"] = query["schema"]
        elif self.database_url.startswith("sqlite://"):
            path = self.database_url.removeprefix("sqlite://").removeprefix("/")
            env.update(
                {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": path, "SQLITE_LOCK_TIMEOUT": "10"}
            )
        elif self.database_url in ("", "file"):
            self.data_dir.mkdir(parents=True, exist_ok=True)
            env.update(
                {
                    "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                    "SQLITE_DBNAME": str(self.data_dir / "emissary.sqlite3"),
                    "SQLITE_LOCK_TIMEOUT": "10",
                }
            )
        elif self.database_url == "memory":
            env.update({"PERSISTENCE_MODULE": "eventsourcing.popo"})
        else:
            raise ValueError(  # not the URL itself: it may hold a password
                "EMISSARY_DATABASE_URL must be postgresql://..., sqlite:///path, memory or empty, "
                f"not a {self.database_url.partition(':')[0][:20]!r} URL"
            )
        return env
