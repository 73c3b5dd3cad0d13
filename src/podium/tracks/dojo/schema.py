"""The dojo's tables (SQLAlchemy Core). Migrations in ``migrations/versions`` create and change them.

Times are stored as UTC ISO-8601 text with microseconds (``T`` separator, ``+00:00``): they sort as text on
every database, compare exactly, and replay byte for byte.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from podium.core.accounts import accounts_table
from podium.core.job_queue import queue_columns
from podium.core.sessions import sessions_table
from podium.core.storage.store import audit_table

VERSION_TABLE = "dojo_alembic_version"
JUDGED_HAS_LENGTH = "status <> 'judged' OR length IS NOT NULL OR verdict = 'POLICY_REJECT'"
metadata = MetaData()

users = accounts_table(metadata, "dojo_users")  # role: setter | solver | operator
sessions = sessions_table(metadata, "dojo_sessions", "dojo_users")  # the pages' sign-ins

seasons = Table(
    "dojo_seasons",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("rules_json", Text, nullable=False),
    Column("created_at", String(32), nullable=False),
)

problems = Table(
    "dojo_problems",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("season_id", Integer, ForeignKey("dojo_seasons.id"), nullable=False),
    Column("slug", String(64), nullable=False),
    Column("title", String(200), nullable=False),
    Column("statement", Text, nullable=False),
    Column("offset", Integer, nullable=False),
    Column("n_visible", Integer, nullable=False),
    Column("state", String(16), nullable=False),
    Column("setter_id", Integer, ForeignKey("dojo_users.id"), nullable=False),
    Column("setter_source", LargeBinary, nullable=False),  # canonical bytes; secret until reveal
    Column("terms", Text),  # the n_check terms, "\n"-joined with a final "\n"; secret until reveal
    Column("salt_hex", String(64)),  # secret until reveal
    Column("setter_commit", String(64)),
    Column("seq_commit", String(64)),
    Column("validation_json", Text),  # what validating the setter found (warnings for the operator)
    Column("open_at", String(32)),
    Column("freeze_at", String(32)),
    Column("reveal_at", String(32)),
    Column("opened_at", String(32)),
    Column("freeze_started_at", String(32)),
    Column("revealed_at", String(32)),
    Column("created_at", String(32), nullable=False),
    UniqueConstraint("season_id", "slug", name="uq_dojo_problem_slug"),
)

submissions = Table(
    "dojo_submissions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("problem_id", Integer, ForeignKey("dojo_problems.id"), nullable=False, index=True),
    Column("user_id", Integer, ForeignKey("dojo_users.id"), nullable=False, index=True),
    Column("source", LargeBinary, nullable=False),  # canonical bytes (raw bytes when not admitted)
    Column("solver_hash", String(64)),
    Column("length", Integer),
    Column("method_tag", String(64), nullable=False),  # as claimed (normalised); see tag_override
    Column("notes", Text, nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("practice", Boolean, nullable=False),  # made after the freeze: judged, never counted
    *queue_columns(fair=True),  # status: queued | running | judged; turn: its fair-share round
    Column("verdict", String(16)),
    Column("reason", Text),
    Column("stage_pass", Boolean),
    Column("reward_correct", Boolean),
    Column("backend", String(32)),
    Column("isolated", Boolean),
    Column("judged_at", String(32)),
    Column("tag_override", Text),  # why the judge ignored the claimed tag; NULL where the claim stands
    Column("idempotency_key", String(64)),  # the client's, unique per user: a retried post gets its first receipt
    # what the run cost and who judged it (migration 0009): for the jury, disputes and replays; never published
    Column("stderr", Text),  # the program's last STDERR_SHOWN bytes
    Column("wall_time_s", Float),
    Column("cpu_time_s", Float),
    Column("cpu_counted_by", String(16)),  # "cgroup": the whole process tree; "rusage": the program's own
    Column("peak_memory_mib", Float),
    Column("waited_s", Float),  # at the wall limit: how long its threads waited for a CPU (execute.starved)
    Column("judge_version", String(32)),  # judge.JUDGE_VERSION
    # a judged row has the length the judge measured (only a source never admitted, stored before 0003, has none)
    CheckConstraint(JUDGED_HAS_LENGTH, name="ck_dojo_submissions_judged_length"),
    # a claim reads the next turn from the first, queueing a submission its solver's last turn from the second
    Index("ix_dojo_submissions_claim_order", "status", "turn", "id"),
    Index("ix_dojo_submissions_user_turn", "user_id", "status", "turn"),
    Index("ux_dojo_submissions_idempotency", "user_id", "idempotency_key", unique=True),
)

messages = Table(  # clarifications and announcements (migration 0010; clarifications.py)
    "dojo_messages",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("kind", String(16), nullable=False),  # question | answer | announcement
    Column("problem_id", Integer, ForeignKey("dojo_problems.id")),  # NULL: about the whole contest
    Column("author_id", Integer, ForeignKey("dojo_users.id"), nullable=False),
    Column("recipient_id", Integer, ForeignKey("dojo_users.id")),  # NULL: everyone (a question: the jury)
    Column("reply_to", Integer, ForeignKey("dojo_messages.id"), index=True),  # an answer's question
    Column("text", Text, nullable=False),
    Column("created_at", String(32), nullable=False),
    CheckConstraint("kind IN ('question', 'answer', 'announcement')", name="ck_dojo_messages_kind"),
)

audit_log = audit_table(metadata, "dojo_audit_log")
