"""Opening the catalog: which URL (--db, NSYS_ANALYTICS_DB, else an SQLite file in the user's data folder), an
engine set up for concurrent writers, the schema created or migrated, errors as one line with credentials masked."""

from __future__ import annotations

import os
import random
import re
import stat
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar
from urllib.parse import quote, quote_plus

from sqlalchemy import create_engine, event, select
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, SQLAlchemyError

from ...core.errors import EXIT_USAGE_ERROR, NsysAnalyticsError
from .schema import MIGRATIONS, SCHEMA_VERSION, catalog_meta, metadata

ENV = "NSYS_ANALYTICS_DB"
_LOCK_ID = 7_104_513_021  # PostgreSQL advisory lock held while the schema is created or migrated
_RETRIES = 8
_OTHER_TABLES = ("an SQLite database of other tables, not a run catalog (profiles are arguments; --db names the "
                 "catalog: a new file or an existing one)")
_SUPPORTED = ("SQLite (a file path or sqlite:///PATH) or PostgreSQL (postgresql://user@host:5432/db, driver "
              "psycopg)")
_DRIVERS = {"sqlite", "sqlite+pysqlite", "postgresql+psycopg"}
_SECRET_KEY = re.compile(r"pass|pwd|secret|token", re.IGNORECASE)  # psycopg's password=, sslpassword=, ...
_SECRET_VALUE = re.compile(r"""(\b[\w.-]*(?:pass|pwd|secret|token)[\w.-]*\s*[=:]\s*)"""  # key= or key:
                           r"""(?!\*\*\*(?:[\s&'",;):]|$))"""  # not one masked already
                           r"""('[^']*'|"[^"]*"|[^\s&'",;)]+)""", re.IGNORECASE)  # a quoted or a bare value
_NONE_YET = "no run catalog there yet (`nsys-analytics runs add PROFILE --db ...` makes one)"


class CatalogError(NsysAnalyticsError):
    """The catalog cannot be reached, is of a newer schema, or refused a write."""


class CatalogURLError(CatalogError):
    """--db is not a database URL at all (a usage error)."""

    exit_code = EXIT_USAGE_ERROR


def default_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "nsys-analytics" / "runs.db"


def resolve_url(db: str | None) -> URL:
    """--db, else $NSYS_ANALYTICS_DB, else the default SQLite file. A bare path means an SQLite file;
    postgresql:// uses the psycopg (3) driver. A URL that does not parse (a port that is not a number, an
    unclosed `[`) is a usage error; another database or driver is refused naming the supported ones."""
    text = db or os.environ.get(ENV) or str(default_path())
    if "://" not in text:
        path = Path(text).expanduser()
        return URL.create("sqlite", database=str(path))
    try:
        url = make_url(text)
    except (ArgumentError, ValueError) as e:  # ValueError: SQLAlchemy's int() of the port
        why = f" ({e})" if isinstance(e, ValueError) else ""
        raise CatalogURLError(f"{mask_text(text)}: not a valid database URL{why}; write {_SUPPORTED}") from None
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")
    if url.drivername not in _DRIVERS:  # the text: naming another dialect would import it
        raise CatalogError(f"{masked(url)}: {url.drivername}:// is not supported; the catalog is {_SUPPORTED}")
    if url.port is not None and not 0 < url.port < 65536:
        raise CatalogURLError(f"{masked(url)}: not a valid database URL (port {url.port} is not 1-65535); write "
                              f"{_SUPPORTED}")
    return url


def masked(url: URL) -> str:
    """The URL as it may be printed: the password, and any credential given in the query, replaced by ***, also
    where it appears again (a database named like the password); the dialect's name is ours and kept."""
    secret = {k: "***" for k in url.query if _SECRET_KEY.search(k)}
    text = url.set(query={**url.query, **secret}).render_as_string(hide_password=True)
    scheme, sep, rest = text.replace("%2A%2A%2A", "***").partition("://")
    return scheme + sep + _replace_secrets(rest, url)


def mask_text(text: str) -> str:
    """Text that may hold a URL or a connection string (a URL given as text, a driver's error): every
    `user:password@` and `password=...` masked, even where it cannot be parsed."""
    text = re.sub(r"(://[^:/@\s]*:)[^@\s]*@", r"\1***@", text)
    return _SECRET_VALUE.sub(r"\1***", text)


def scrub(message: str, url: URL) -> str:
    """`message` with every credential of `url` (the password, credentials in its query; as given, URL-quoted
    or unquoted) replaced by ***, and any other `password=...` masked."""
    return mask_text(_replace_secrets(message, url))


def _replace_secrets(text: str, url: URL) -> str:
    for secret in _secrets(url):
        for form in {secret, quote(secret, safe=""), quote_plus(secret)}:
            if len(form) >= _SHORT_SECRET:
                text = text.replace(form, "***")
            else:  # a password of a letter or two: inside words ("port") it is no secret, and masking mangles them
                text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(form)}(?![A-Za-z0-9])", "***", text)
    return text


_SHORT_SECRET = 4  # shorter secrets are masked only where they stand alone


def scrub_text(message: str, db: str | None) -> str:
    """`scrub` for a catalog given as text (--db), which may not parse."""
    try:
        return scrub(message, resolve_url(db))
    except CatalogError:
        return mask_text(message)


def _secrets(url: URL) -> list[str]:
    values = [url.password] if url.password else []
    for key, value in url.query.items():
        if _SECRET_KEY.search(key):
            values += [value] if isinstance(value, str) else list(value)
    return sorted({str(v) for v in values if v}, key=len, reverse=True)  # longest first: no partial masks


class Catalog:
    """An open catalog: an engine on a checked schema. `write()` / `read()` give a connection in one transaction."""

    def __init__(self, db: str | None = None, create: bool = True):
        """`create`: make the catalog where there is none yet (`runs add`); without it (the commands that only
        read) a missing SQLite file is an error, and no file is made."""
        self.url = resolve_url(db)
        self.name = masked(self.url)
        self.create = create
        self._default = not (db or os.environ.get(ENV))  # only the default file's folder is made
        if self.is_sqlite:
            self._check_file()
        self.engine = self._engine()
        try:
            self._prepare()
        except BaseException:
            self.close()  # a corrupt SQLite file keeps no -wal/-shm beside it
            raise

    def _check_file(self) -> None:
        """An SQLite catalog path names a regular file (a FIFO or a device would hang or mislead SQLite), and a
        command that only reads makes none."""
        database = self.url.database
        if not database or database == ":memory:" or database.startswith("file:"):
            return
        try:
            st = os.stat(database)
        except FileNotFoundError:
            if os.path.islink(database):
                raise CatalogError(f"catalog {self.name}: a link to a missing file") from None
            if not self.create:
                raise CatalogError(f"catalog {self.name}: {_NONE_YET}") from None
            self._check_folder(Path(database).parent)
            return
        except OSError as e:
            raise CatalogError(f"catalog {self.name}: cannot be opened ({e.strerror})") from None
        if not stat.S_ISREG(st.st_mode):
            raise CatalogError(f"catalog {self.name}: not a regular file; give the path of an SQLite catalog file")
        if st.st_size == 0 and not self.create:
            raise CatalogError(f"catalog {self.name}: an empty file, {_NONE_YET}")
        if st.st_size and _other_tables(database):  # before SQLAlchemy's connection makes -wal/-shm files beside it
            raise CatalogError(f"catalog {self.name}: {_OTHER_TABLES}")

    def _check_folder(self, folder: Path) -> None:
        """A new catalog's folder: made for the default file; a path the user gave must be in a folder that exists
        (a typo must not make folders)."""
        if folder.is_dir():
            return
        if not self._default:
            raise CatalogError(f"catalog {self.name}: the folder {folder} does not exist; create it first "
                               "(mkdir -p) or give a path in an existing folder")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise CatalogError(f"catalog {self.name}: cannot create its folder {folder} ({e.strerror})") from None

    @property
    def is_sqlite(self) -> bool:
        return self.url.get_backend_name() == "sqlite"

    def _engine(self) -> Engine:
        try:
            if self.is_sqlite:
                return _sqlite_engine(self.url)
            # Credentials of the query go to the driver as arguments: the engine's URL (its repr, SQLAlchemy's logs)
            # then holds none that its own masking of the password would miss.
            secret = {k: v for k, v in self.url.query.items() if _SECRET_KEY.search(k)}
            url = self.url.difference_update_query(secret)
            return create_engine(url, pool_pre_ping=False, connect_args={"connect_timeout": 10, **secret})
        except (NoSuchModuleError, ArgumentError, ImportError) as e:
            raise CatalogError(f"{self.name}: cannot be opened ({scrub(str(e), self.url)}); the catalog is "
                               f"{_SUPPORTED}") from None

    def _prepare(self) -> None:
        """Create the tables on first use, migrate an older schema, refuse a newer one. A catalog of this version
        is only read (no write transaction, so `runs list` neither waits for a writer nor writes the file)."""
        found = self.read(self._version)
        if found is None and not self.create:
            raise CatalogError(f"catalog {self.name}: {_NONE_YET}")
        if found != SCHEMA_VERSION:
            self.write(self._create_or_migrate)

    def _create_or_migrate(self, conn: Connection) -> None:
        """No tables: create them (version SCHEMA_VERSION); an older version: migrate; a newer one: refuse."""
        if not self.is_sqlite:
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_LOCK_ID})")
        found = self._version(conn)
        if found is None:
            metadata.create_all(conn)
            conn.execute(catalog_meta.insert().values(key="schema_version", value=str(SCHEMA_VERSION)))
            return
        if found > SCHEMA_VERSION:
            raise CatalogError(f"{self.name}: written by catalog schema version {found}; this nsys-analytics "
                               f"reads up to version {SCHEMA_VERSION}: upgrade nsys-analytics")
        for version in range(found + 1, SCHEMA_VERSION + 1):
            MIGRATIONS[version](conn)
        if found < SCHEMA_VERSION:
            conn.execute(catalog_meta.update().where(catalog_meta.c.key == "schema_version")
                         .values(value=str(SCHEMA_VERSION)))

    def _version(self, conn: Connection) -> int | None:
        """The catalog's schema version; None where there are no tables yet. An SQLite file holding other tables
        (a profile given as --db, say) is refused before anything is written to it."""
        if not conn.dialect.has_table(conn, "catalog_meta"):
            if self.is_sqlite and conn.exec_driver_sql("SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                                                       ).scalar():
                raise CatalogError(f"catalog {self.name}: {_OTHER_TABLES}")
            return None
        return int(conn.execute(select(catalog_meta.c.value).where(catalog_meta.c.key == "schema_version"))
                   .scalar_one())

    T = TypeVar("T")

    def write(self, work: Callable[[Connection], T]) -> T:
        """Run `work(conn)` in one write transaction (SQLite: BEGIN IMMEDIATE, so writers queue on the busy
        timeout instead of failing), retried a few times on a lock or serialization conflict."""
        return self._transaction(work, write=True)

    def read(self, work: Callable[[Connection], T]) -> T:
        """Run `work(conn)` in one read transaction, retried like `write` on a lock conflict (a reader can meet
        one while another process sets up a new catalog's WAL files)."""
        return self._transaction(work, write=False)

    def _transaction(self, work: Callable[[Connection], T], write: bool) -> T:
        for attempt in range(_RETRIES):
            try:
                with self._connection(write=write) as conn, conn.begin():
                    return work(conn)
            except DBAPIError as e:
                if attempt + 1 < _RETRIES and _transient(e):
                    time.sleep(0.05 * 2 ** attempt * (1 + random.random()))
                    continue
                raise self.error(e) from None

    @contextmanager
    def _connection(self, write: bool):
        conn = self.engine.connect()
        try:
            conn.info["write"] = write
            yield conn
        finally:
            conn.close()

    def error(self, e: SQLAlchemyError) -> CatalogError:
        orig = getattr(e, "orig", None) or e
        message = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
        return CatalogError(f"catalog {self.name}: {scrub(message, self.url)}")  # the name is masked already

    def close(self) -> None:
        self.engine.dispose()


def _other_tables(path: str) -> bool:
    """True when the SQLite file at `path` clearly holds tables but no catalog_meta. Read as an immutable file:
    nothing is locked, written or created beside it. Anything unclear (not SQLite, a torn read of a catalog being
    checkpointed) is False: the catalog's own opening then says what is wrong."""
    import sqlite3
    from urllib.parse import quote

    try:
        con = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro&immutable=1", uri=True)
        try:
            names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            con.close()
    except sqlite3.Error:
        return False
    return bool(names) and "catalog_meta" not in names


def _transient(e: DBAPIError) -> bool:
    text = str(e.orig).lower()
    return any(s in text for s in ("database is locked", "busy", "deadlock", "could not serialize"))


def _sqlite_engine(url: URL) -> Engine:
    engine = create_engine(url, connect_args={"timeout": 60})

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None  # transactions are begun below, not by the driver
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA busy_timeout = 60000")
        # Readers never block the writer, nor it them. Set on every connection, as it must be before any
        # transaction; a file of other tables never gets here (Catalog._check_file refuses it first).
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn):
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.info.get("write") else "BEGIN")

    return engine
