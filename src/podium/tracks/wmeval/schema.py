"""The wmeval tables (SQLAlchemy Core); the migrations in ``migrations/versions`` create and change them.

Media files live in a media store folder (its absolute path is kept in ``wmeval_meta``, so ``podium serve`` finds it
from the database alone); every path in a table is relative to it. Team names live in ``wmeval_teams`` only: an
annotator's item carries an opaque random key, never a team id or name. Times are UTC ISO-8601 text.
"""

from __future__ import annotations

from sqlalchemy import Boolean, Column, ForeignKey, Integer, Join, MetaData, String, Table, Text, UniqueConstraint

from podium.core.accounts import accounts_table
from podium.core.sessions import sessions_table
from podium.core.storage.store import audit_table

VERSION_TABLE = "wmeval_alembic_version"
metadata = MetaData()

users = accounts_table(metadata, "wmeval_users")  # role: annotator | operator
sessions = sessions_table(metadata, "wmeval_sessions", "wmeval_users")  # the pages' sign-ins

meta = Table(
    "wmeval_meta",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

gt = Table(
    "wmeval_gt",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("task", String(16), nullable=False),
    Column("episode", String(64), nullable=False),
    Column("video_path", Text),  # the composed reference strip; NULL when a view cannot be decoded
    Column("last_frame_path", Text),
    Column("playable", Boolean, nullable=False),
    Column("reason", Text, nullable=False),
    Column("probe_json", Text, nullable=False),
    Column("created_at", String(32), nullable=False),
    UniqueConstraint("task", "episode", name="uq_wmeval_gt_episode"),
)

teams = Table(
    "wmeval_teams",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("created_at", String(32), nullable=False),
    Column("kind", String(8), nullable=False, server_default="team"),  # team | gold (the gold set: never ranked)
)

videos = Table(
    "wmeval_videos",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("team_id", Integer, ForeignKey("wmeval_teams.id"), nullable=False, index=True),
    Column("task", String(16), nullable=False),
    Column("episode", String(64), nullable=False),
    Column("original_path", Text, nullable=False),  # kept as submitted
    Column("video_path", Text),  # the H.264 copy; NULL when unplayable
    Column("last_frame_path", Text),
    Column("playable", Boolean, nullable=False),
    Column("reason", Text, nullable=False),
    Column("probe_json", Text, nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("expected", Integer),  # a gold set's video: the score it should get; NULL for a team's
    UniqueConstraint("team_id", "task", "episode", name="uq_wmeval_video"),
)

issues = Table(
    "wmeval_issues",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("team_id", Integer, ForeignKey("wmeval_teams.id")),  # NULL for the GT
    Column("kind", String(16), nullable=False),  # unknown | missing | duplicate | undecodable | ignored
    Column("path", Text, nullable=False),
    Column("detail", Text, nullable=False),
    Column("created_at", String(32), nullable=False),
)

episode_map = Table(
    "wmeval_episode_map",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("task", String(16), nullable=False),
    Column("episode", String(64), nullable=False),
    Column("annotator_id", Integer, ForeignKey("wmeval_users.id"), nullable=False),
    Column("overlap", Boolean, nullable=False),  # also scored by every annotator of the task, for agreement only
    UniqueConstraint("task", "episode", name="uq_wmeval_map_episode"),
)

items = Table(
    "wmeval_items",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("key", String(32), nullable=False, unique=True),  # opaque and random: the only id an annotator sees
    Column("kind", String(8), nullable=False),  # primary | overlap | gold
    Column("annotator_id", Integer, ForeignKey("wmeval_users.id"), nullable=False, index=True),
    Column("video_id", Integer, ForeignKey("wmeval_videos.id")),  # a team's video, or a gold set's
    Column("gt_id", Integer, ForeignKey("wmeval_gt.id"), nullable=False),
    Column("expected", Integer),  # gold only: the known answer
    Column("position", Integer, nullable=False),  # the queue order (shuffled across teams)
    Column("created_at", String(32), nullable=False),
)

scores = Table(
    "wmeval_scores",
    metadata,
    Column("item_id", Integer, ForeignKey("wmeval_items.id"), primary_key=True),
    Column("score", Integer),  # 0-3; NULL for a can't-judge answer
    Column("note", Text, nullable=False),
    Column("cant_judge", String(16)),  # reference | video | other: why the annotator could not judge; else NULL
    Column("resolution", String(16)),  # broken: the operator's answer to a can't-judge (counts 0); else NULL
    Column("revision", Integer, nullable=False),
    Column("updated_at", String(32), nullable=False),
)

item_times = Table(  # when an annotator first opened an item and first answered it: time on item
    "wmeval_item_times",
    metadata,
    Column("item_id", Integer, ForeignKey("wmeval_items.id"), primary_key=True),
    Column("annotator_id", Integer, ForeignKey("wmeval_users.id"), primary_key=True),  # an item may move
    Column("opened_at", String(32), nullable=False),
    Column("answered_at", String(32)),
)

audit_log = audit_table(metadata, "wmeval_audit_log")


def items_with_context() -> Join:
    """Items with their annotator, GT episode and (for team items) video, team and score: the operator's view."""
    return (
        items.join(users, users.c.id == items.c.annotator_id)
        .join(gt, gt.c.id == items.c.gt_id)
        .outerjoin(videos, videos.c.id == items.c.video_id)
        .outerjoin(teams, teams.c.id == videos.c.team_id)
        .outerjoin(scores, scores.c.item_id == items.c.id)
    )
