"""SQLAlchemy 2 ORM and Core against a server that says it is MariaDB 10.11.

The MariaDB dialect then fetches new primary keys and server defaults with
INSERT ... RETURNING (one row, and batches of rows through "insertmanyvalues"),
and Core offers DELETE ... RETURNING. Every statement SQLAlchemy sends is
recorded, so the checks prove RETURNING was used, not a fallback.

Usage: sqlalchemy_returning.py PORT
Prints one line per check and `OK sqlalchemy` at the end; the first mismatch raises.
"""

import datetime as dt
import sys

from sqlalchemy import (
    DateTime,
    Integer,
    String,
    create_engine,
    delete,
    event,
    func,
    insert,
    select,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"
    # Fetch server-generated values at INSERT time (through RETURNING).
    __mapper_args__ = {"eager_defaults": True}

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(50))
    created: Mapped[dt.datetime] = mapped_column(DateTime, server_default=func.now())
    score: Mapped[int] = mapped_column(Integer, server_default=text("7"))


class Note(Base):
    __tablename__ = "notes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    body: Mapped[str] = mapped_column(String(200))


def check(what, got, want):
    if got != want:
        raise AssertionError(f"{what}: got {got!r}, want {want!r}")
    print(f"ok {what}")


def main():
    port = int(sys.argv[1])
    admin = create_engine(f"mariadb+pymysql://root@127.0.0.1:{port}/")
    with admin.connect() as c:
        c.execute(text("DROP DATABASE IF EXISTS sa_returning"))
        c.execute(text("CREATE DATABASE sa_returning"))
    admin.dispose()

    engine = create_engine(f"mariadb+pymysql://root@127.0.0.1:{port}/sa_returning")
    sent = []

    @event.listens_for(engine, "before_cursor_execute")
    def record(conn, cursor, statement, parameters, context, executemany):
        sent.append(statement)

    check("dialect is MariaDB", engine.dialect.name, "mariadb")
    with engine.connect() as c:
        c.execute(text("SELECT 1"))
    check("server version >= 10.5", engine.dialect.server_version_info >= (10, 5), True)
    check("dialect uses INSERT RETURNING", engine.dialect.insert_returning, True)
    check("dialect uses DELETE RETURNING", engine.dialect.delete_returning, True)
    Base.metadata.create_all(engine)

    def inserts_since(mark):
        return [s for s in sent[mark:] if s.lstrip().upper().startswith("INSERT")]

    # One ORM insert: the primary key and both server defaults come back.
    mark = len(sent)
    with Session(engine) as s:
        u = User(name="ada")
        s.add(u)
        s.flush()
        check("one insert used RETURNING", all("RETURNING" in q for q in inserts_since(mark)), True)
        check("one insert sent one statement", len(inserts_since(mark)), 1)
        check("primary key fetched", u.id, 1)
        check("server default fetched", u.score, 7)
        check("server timestamp fetched", isinstance(u.created, dt.datetime), True)
        s.commit()

    # Several objects: one batched INSERT ... VALUES (...), (...) RETURNING.
    mark = len(sent)
    with Session(engine) as s:
        batch = [User(name=f"user{i}") for i in range(5)]
        s.add_all(batch)
        s.flush()
        ins = inserts_since(mark)
        check("batch used RETURNING", all("RETURNING" in q for q in ins), True)
        check("batch sent one statement", len(ins), 1)
        check("batch ids", [u.id for u in batch], [2, 3, 4, 5, 6])
        check("batch ids matched to objects", [u.name for u in batch], [f"user{i}" for i in range(5)])
        s.commit()

    # A table without server defaults: plain autoincrement through RETURNING.
    with Session(engine) as s:
        notes = [Note(body="first"), Note(body="second")]
        s.add_all(notes)
        s.commit()
        check("note ids", [n.id for n in notes], [1, 2])

    # Core: INSERT ... RETURNING with several rows, and DELETE ... RETURNING.
    with engine.begin() as c:
        rows = c.execute(
            insert(Note).returning(Note.id, Note.body, sort_by_parameter_order=True),
            [{"body": "x"}, {"body": "y"}, {"body": "z"}],
        ).all()
        check("core insert returning", [tuple(r) for r in rows], [(3, "x"), (4, "y"), (5, "z")])
        gone = c.execute(delete(Note).where(Note.id >= 4).returning(Note.id, Note.body)).all()
        check("core delete returning", sorted(tuple(r) for r in gone), [(4, "y"), (5, "z")])
        left = c.execute(select(func.count()).select_from(Note)).scalar()
        check("rows left after delete", left, 3)

    # What the ORM reads back matches what RETURNING said.
    with Session(engine) as s:
        names = s.execute(select(User.id, User.name).order_by(User.id)).all()
        check("stored users", [tuple(r) for r in names][:2], [(1, "ada"), (2, "user0")])

    engine.dispose()
    print("OK sqlalchemy")


if __name__ == "__main__":
    main()
