"""Clarifications and announcements, as DOMjudge and CMS contestants know them, audited.

A contestant (solver or setter) asks a question, about one problem or the whole contest; only they and the jury
see it. The jury answers it to the asker alone, or to everyone (the question is then shown with the answer:
answering to all publishes it). The jury announces to everyone or to one user. Every message is kept and
audited (``asked``, ``answered``, ``announced``); none is edited or deleted. A message is 1 to 4,000 characters
of text a database can store. A user asks at most ``MAX_OPEN_QUESTIONS`` questions the jury has not answered yet,
so one person cannot bury the jury's queue.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, and_, func, insert, or_, select

from podium.core.errors import InputError, NotFoundError, PermissionDenied, RateLimited
from podium.core.storage.sql import inserted_id
from podium.core.storage.text import unstorable
from podium.tracks.dojo.records import Role, User
from podium.tracks.dojo.schema import messages
from podium.tracks.dojo.store import append_audit, transaction

if TYPE_CHECKING:
    from podium.tracks.dojo.platform import Dojo

MAX_TEXT = 4000
MAX_OPEN_QUESTIONS = 5


class MessageKind(enum.StrEnum):
    """What a message is."""

    QUESTION = "question"
    ANSWER = "answer"
    ANNOUNCEMENT = "announcement"


@dataclass(frozen=True, slots=True)
class Message:
    """One message as its reader sees it."""

    id: int
    kind: MessageKind
    problem: str | None  # the problem's slug; None: the whole contest
    author: str
    to: str | None  # None: everyone (a question: the jury)
    text: str
    at: str
    reply_to: int | None = None
    question: str | None = None  # an answer's question, shown with it
    answered: bool = False  # a question: whether the jury answered it

    def json(self) -> dict[str, Any]:
        """The message as JSON."""
        return {"id": self.id, "kind": self.kind.value, "problem": self.problem, "from": self.author, "to": self.to,
                "text": self.text, "at": self.at, "reply_to": self.reply_to, "question": self.question,
                "answered": self.answered}  # fmt: skip


def _checked(text: str) -> str:
    text = text.strip()
    if not text:
        raise InputError("the message is empty", fix="write the question or the answer")
    if len(text) > MAX_TEXT:
        raise InputError(f"the message is {len(text)} characters; at most {MAX_TEXT}", fix="say it shorter")
    if problem := unstorable(text):
        raise InputError(f"the message holds {problem}", fix="remove it")
    return text


def _jury(user: User) -> None:
    if user.role is not Role.OPERATOR:
        raise PermissionDenied("only operators answer and announce", fix="ask the jury a question instead")


def ask(dojo: Dojo, user: User, text: str, problem: str | None = None) -> Message:
    """``user``'s question to the jury (about ``problem``, a published one, or the whole contest)."""
    if user.role is Role.OPERATOR:
        raise PermissionDenied("operators answer questions; they do not ask them", fix="announce instead")
    text = _checked(text)
    problem_id = _published_problem(dojo, problem)
    with transaction(dojo.engine) as db:
        if _open_questions(db, user.id) >= MAX_OPEN_QUESTIONS:
            raise RateLimited(f"{user.name} has {MAX_OPEN_QUESTIONS} questions the jury has not answered yet",
                              retry_after_s=60, fix="wait for an answer before asking more")  # fmt: skip
        return _store(db, dojo, MessageKind.QUESTION, user, text, problem_id, problem, None, None, "asked")


def _open_questions(db: Connection, user_id: int) -> int:
    """How many of ``user_id``'s questions have no answer yet."""
    answered = select(messages.c.reply_to).where(messages.c.reply_to.is_not(None))
    unanswered = (
        select(func.count())
        .select_from(messages)
        .where(
            messages.c.author_id == user_id,
            messages.c.kind == MessageKind.QUESTION.value,
            messages.c.id.not_in(answered),
        )
    )
    return int(db.execute(unanswered).scalar_one())


def answer(dojo: Dojo, operator: User, question_id: int, text: str, *, to_all: bool = False) -> Message:
    """The jury's answer to question ``question_id``: to its asker, or to everyone (``to_all``)."""
    _jury(operator)
    text = _checked(text)
    with dojo.engine.connect() as db:
        asked = db.execute(select(messages).where(messages.c.id == question_id)).first()
    if asked is None or asked.kind != MessageKind.QUESTION.value:
        raise NotFoundError(f"no question {question_id}", fix="see the questions: podium dojo clarifications")
    slug, to = _slug(dojo, asked.problem_id), None if to_all else asked.author_id
    recipient = None if to is None else dojo.user_names()[to]  # read before the write transaction: SQLite's lock
    with transaction(dojo.engine) as db:
        return _store(db, dojo, MessageKind.ANSWER, operator, text, asked.problem_id, slug, to, question_id,
                      "answered", question=asked.text, recipient=recipient)  # fmt: skip


def announce(dojo: Dojo, operator: User, text: str, *, to: str | None = None, problem: str | None = None) -> Message:
    """The jury's announcement to everyone, or to the user named ``to``."""
    _jury(operator)
    text = _checked(text)
    recipient = dojo.user(to) if to is not None else None
    problem_id = _published_problem(dojo, problem) if problem is not None else None
    with transaction(dojo.engine) as db:
        return _store(db, dojo, MessageKind.ANNOUNCEMENT, operator, text, problem_id, problem,
                      None if recipient is None else recipient.id, None, "announced",
                      recipient=None if recipient is None else recipient.name)  # fmt: skip


def _published_problem(dojo: Dojo, slug: str | None) -> int | None:
    from podium.tracks.dojo.lifecycle import PUBLISHED
    from podium.tracks.dojo.platform import unknown_problem

    if slug is None:
        return None
    found = dojo.problem(slug)
    if found.state not in PUBLISHED:
        raise unknown_problem(slug)  # a draft's name is a secret too
    return found.id


def _slug(dojo: Dojo, problem_id: int | None) -> str | None:
    return None if problem_id is None else dojo.problem_by_id(problem_id).slug


def _store(
    db: Connection, dojo: Dojo, kind: MessageKind, author: User, text: str, problem_id: int | None,
    slug: str | None, recipient_id: int | None, reply_to: int | None, audited: str, *,
    question: str | None = None, recipient: str | None = None,
) -> Message:  # fmt: skip
    at = dojo.now()
    new_id = inserted_id(db, insert(messages).values(
        kind=kind.value, problem_id=problem_id, author_id=author.id, recipient_id=recipient_id, reply_to=reply_to,
        text=text, created_at=at,
    ))  # fmt: skip
    append_audit(db, at, audited, {"message": new_id, "kind": kind.value, "problem": slug, "from": author.name,
                                   "to": recipient, "reply_to": reply_to, "text": text})  # fmt: skip
    return Message(new_id, kind, slug, author.name, recipient, text, at, reply_to, question)


def messages_for(dojo: Dojo, user: User | None, *, jury: bool = False) -> list[Message]:
    """The messages ``user`` may read, oldest first.

    All of them for the jury (an operator, or ``jury`` for the command line); for anyone else their own questions
    and the answers and announcements to them or to everyone (``None``: an anonymous reader, only those to
    everyone).
    """
    query = select(messages).order_by(messages.c.id)
    if not jury and (user is None or user.role is not Role.OPERATOR):
        public = and_(messages.c.kind != MessageKind.QUESTION.value, messages.c.recipient_id.is_(None))
        if user is None:
            query = query.where(public)
        else:
            query = query.where(or_(public, messages.c.author_id == user.id, messages.c.recipient_id == user.id))
    with dojo.engine.connect() as db:
        rows = db.execute(query).all()
        questions = {r.id: r.text for r in db.execute(select(messages.c.id, messages.c.text).where(
            messages.c.kind == MessageKind.QUESTION.value))}  # fmt: skip
        answered = set(db.execute(select(messages.c.reply_to).where(messages.c.reply_to.is_not(None))).scalars())
    names = dojo.user_names()
    slugs = {p.id: p.slug for p in dojo.problems_by_id({r.problem_id for r in rows if r.problem_id}).values()}
    return [
        Message(r.id, MessageKind(r.kind), slugs.get(r.problem_id), names[r.author_id],
                None if r.recipient_id is None else names[r.recipient_id], r.text, r.created_at, r.reply_to,
                questions.get(r.reply_to) if r.reply_to else None, r.id in answered)
        for r in rows
    ]  # fmt: skip
