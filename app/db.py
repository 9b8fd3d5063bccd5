"""Database engines and transactions: SQLite (one machine) or PostgreSQL (several processes).

SQLite runs in WAL mode (synchronous NORMAL) with foreign keys and a busy timeout. Writes open with ``BEGIN IMMEDIATE``
so two writers never both read a room and then race to update it; together with the version
check in ``app/rooms/writer.py`` this also holds across processes. Reads use plain deferred transactions.

PostgreSQL (``postgresql+psycopg://…``, the ``scale`` extra) runs at READ COMMITTED: a write session
is marked ``LOCK_ROWS``, and the room service then reads the room's row ``FOR UPDATE``, so the writers
of one room queue on that row whichever process they run in, while other rooms' writers go on.

A move's write (``writing``) runs its few statements on the driver's own cursor inside the same kind
of transaction (``WriteCursor``): the ORM's work per statement cost more than the statements did.
That cursor, and the short reads on a pooled connection (``peek``, ``rows``), raise the driver's
errors as SQLAlchemy raises them (``translated``): a database that cannot be reached, read or written
is one ``sqlalchemy.exc.OperationalError`` (503 with ``Retry-After``) whichever way it was asked.
"""

from __future__ import annotations

import logging
import re
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine, ExceptionContext, make_url
from sqlalchemy.exc import DBAPIError, OperationalError, StatementError
from sqlmodel import Session, create_engine

from app import metrics

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 10_000
LOCK_ROWS = "lock_rows"  # a write session's ``info`` key: lock the rows it reads for update
# ``python -m app.migrate``'s exit status when the database could not be reached or written: the
# server starts all the same and answers 503 until it can (any other failure stops the start).
DATABASE_UNAVAILABLE = 3
POOL_SIZE = 10  # connections kept per engine and process (PostgreSQL); as many more when busy


def normalised_url(url: str) -> str:
    """``postgresql://`` and ``postgres://`` name the psycopg 3 driver (the one the extra installs)."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    return url


def translated(
    failure: Exception, statement: str, params: Any, driver_error: type[Exception]
) -> StatementError:
    """The driver's own error (``sqlite3.OperationalError``, ``psycopg.OperationalError``…) as the
    SQLAlchemy error of the same name, which the ORM raises and the web layer answers."""
    error = DBAPIError.instance(statement, params, failure, driver_error)
    if isinstance(error, OperationalError):  # refused or lost, as ``_count_error`` counts
        metrics.database_error()
    return error


def _count_error(context: ExceptionContext) -> None:
    """A statement, commit or connection that failed through SQLAlchemy: counted for /metrics when
    the database refused or was lost (not a constraint another process won, which callers expect)."""
    if context.is_disconnect or isinstance(context.sqlalchemy_exception, OperationalError):
        metrics.database_error()


class Statement:
    """One SQL statement of a hot write, written once with ``:name`` parameters and kept in each
    driver's own style: sqlite3 takes ``:name`` as it is, psycopg wants ``%(name)s``."""

    __slots__ = ("postgres", "sqlite")

    def __init__(self, sql: str) -> None:
        self.sqlite = sql
        self.postgres = re.sub(r"(?<!:):(\w+)", r"%(\1)s", sql)


class WriteCursor:
    """A write transaction's statements on the driver's own cursor (``Database.writing``).

    A move's write is a handful of short statements; through an ORM ``Session`` each one went
    through SQLAlchemy's compile cache, result set-up and events, which cost several times what the
    driver does. The transaction itself is still SQLAlchemy's connection (``BEGIN IMMEDIATE`` on
    SQLite, commit, rollback, the pool), so ``session()`` can read ORM rows inside it."""

    def __init__(self, connection: Connection, is_sqlite: bool) -> None:
        self.connection = connection
        self.is_sqlite = is_sqlite
        self.lock_rows = not is_sqlite  # PostgreSQL: the rows a writer reads first are locked for update
        self._driver_error: type[Exception] = connection.dialect.loaded_dbapi.Error
        dbapi = connection.connection.dbapi_connection
        assert dbapi is not None
        self._cursor = dbapi.cursor()

    def execute(self, statement: Statement, params: Mapping[str, Any]) -> Any:
        """Run one statement; the driver's cursor (``fetchone``, ``rowcount``)."""
        sql = statement.sqlite if self.is_sqlite else statement.postgres
        try:
            self._cursor.execute(sql, params)
        except self._driver_error as failure:
            raise translated(failure, sql, params, self._driver_error) from failure
        return self._cursor

    def executemany(self, statement: Statement, params: Sequence[Mapping[str, Any]]) -> None:
        if not params:
            return
        sql = statement.sqlite if self.is_sqlite else statement.postgres
        try:
            self._cursor.executemany(sql, params)
        except self._driver_error as failure:
            raise translated(failure, sql, params, self._driver_error) from failure

    def timestamp(self, when: datetime) -> Any:
        """``when`` as SQLAlchemy stores a ``DateTime`` column: on SQLite its text without the zone."""
        return f"{when:%Y-%m-%d %H:%M:%S.%f}" if self.is_sqlite else when

    @contextmanager
    def session(self) -> Iterator[Session]:
        """An ORM session inside this transaction (for a room read whole); it never ends it."""
        with Session(bind=self.connection, expire_on_commit=False) as session:
            if self.lock_rows:
                session.info[LOCK_ROWS] = True
            yield session

    def close(self) -> None:
        self._cursor.close()


class Database:
    def __init__(self, url: str) -> None:
        self.url = url = normalised_url(url)
        self.is_sqlite = make_url(url).get_backend_name() == "sqlite"
        self.path: Path | None = None  # the SQLite file (what /healthz measures the free space beside)
        if self.is_sqlite:
            database = make_url(url).database
            if database and database != ":memory:":
                self.path = Path(database.removeprefix("file:"))  # a URI (``file:…?mode=ro&uri=true``) too
                self.path.parent.mkdir(parents=True, exist_ok=True)
        self.reader = self._make_engine(immediate=False)
        self.writer = self._make_engine(immediate=True)

    def _make_engine(self, immediate: bool) -> Engine:
        kwargs: dict[str, Any] = {}
        if self.is_sqlite:
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000}
        else:  # a server: connections may drop (a restart, a failover), so test them before use
            kwargs.update(pool_pre_ping=True, pool_size=POOL_SIZE, max_overflow=POOL_SIZE)
        engine = create_engine(self.url, **kwargs)
        event.listen(engine, "handle_error", _count_error)
        if self.is_sqlite:
            _configure_sqlite(engine, immediate)
        return engine

    def peek(self, sql: str, *params: Any) -> tuple[Any, ...] | None:
        """The first row of one short read (``?`` placeholders), on a pooled connection outside any
        session: a hot path's look at one value (a room's version) costs a tenth of a ``Session``."""
        rows = self.rows(sql, *params, limit=1)
        return rows[0] if rows else None

    def rows(self, sql: str, *params: Any, limit: int | None = None) -> list[tuple[Any, ...]]:
        """The rows of one short read, as ``peek`` reads them (at most ``limit``)."""
        if not self.is_sqlite:
            sql = sql.replace("?", "%s")  # psycopg's placeholder
        driver_error: type[Exception] = self.reader.dialect.loaded_dbapi.Error
        try:
            connection = self.reader.raw_connection()
            try:
                cursor = connection.cursor()
                try:
                    cursor.execute(sql, params)
                    found = cursor.fetchall() if limit is None else cursor.fetchmany(limit)
                finally:
                    cursor.close()
            finally:
                connection.close()  # back to the pool, which ends the read's transaction
        except driver_error as failure:
            raise translated(failure, sql, params, driver_error) from failure
        return [tuple(row) for row in found]

    @contextmanager
    def read(self) -> Iterator[Session]:
        with Session(self.reader, expire_on_commit=False) as session:
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """One write transaction: committed on success, rolled back on any exception."""
        with Session(self.writer, expire_on_commit=False) as session, session.begin():
            if not self.is_sqlite:
                session.info[LOCK_ROWS] = True
            yield session

    @contextmanager
    def writing(self) -> Iterator[WriteCursor]:
        """One write transaction on the driver's cursor (``WriteCursor``): committed on success,
        rolled back on any exception."""
        with self.writer.connect() as connection, connection.begin():
            cursor = WriteCursor(connection, self.is_sqlite)
            try:
                yield cursor
            finally:
                cursor.close()

    def dispose(self) -> None:
        self.reader.dispose()
        self.writer.dispose()


def _configure_sqlite(engine: Engine, immediate: bool) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
        except sqlite3.OperationalError as refused:  # a read-only file or volume: it can still be read
            log.warning("the database stays in its journal mode: %s", refused)
        # In WAL mode NORMAL syncs at checkpoints, not at every commit: a killed process loses
        # nothing it committed (the OS holds the WAL); only a power cut may lose the last commits.
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
