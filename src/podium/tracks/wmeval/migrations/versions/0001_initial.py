"""Initial wmeval tables: users, meta, GT, teams, videos, ingest issues, episode map, items, scores, audit log."""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    """Create the tables as of the first release (a snapshot: later changes get their own revision)."""
    op.create_table(
        "wmeval_users",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("token_sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "wmeval_meta", sa.Column("key", sa.String(64), primary_key=True), sa.Column("value", sa.Text, nullable=False)
    )
    op.create_table(
        "wmeval_gt",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("task", sa.String(16), nullable=False),
        sa.Column("episode", sa.String(64), nullable=False),
        sa.Column("video_path", sa.Text),
        sa.Column("last_frame_path", sa.Text),
        sa.Column("playable", sa.Boolean, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("probe_json", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.UniqueConstraint("task", "episode", name="uq_wmeval_gt_episode"),
    )
    op.create_table(
        "wmeval_teams",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "wmeval_videos",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("team_id", sa.Integer, sa.ForeignKey("wmeval_teams.id"), nullable=False, index=True),
        sa.Column("task", sa.String(16), nullable=False),
        sa.Column("episode", sa.String(64), nullable=False),
        sa.Column("original_path", sa.Text, nullable=False),
        sa.Column("video_path", sa.Text),
        sa.Column("last_frame_path", sa.Text),
        sa.Column("playable", sa.Boolean, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("probe_json", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.UniqueConstraint("team_id", "task", "episode", name="uq_wmeval_video"),
    )
    op.create_table(
        "wmeval_issues",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("team_id", sa.Integer, sa.ForeignKey("wmeval_teams.id")),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("path", sa.Text, nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "wmeval_episode_map",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("task", sa.String(16), nullable=False),
        sa.Column("episode", sa.String(64), nullable=False),
        sa.Column("annotator_id", sa.Integer, sa.ForeignKey("wmeval_users.id"), nullable=False),
        sa.Column("overlap", sa.Boolean, nullable=False),
        sa.UniqueConstraint("task", "episode", name="uq_wmeval_map_episode"),
    )
    op.create_table(
        "wmeval_items",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("key", sa.String(32), nullable=False, unique=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("annotator_id", sa.Integer, sa.ForeignKey("wmeval_users.id"), nullable=False, index=True),
        sa.Column("video_id", sa.Integer, sa.ForeignKey("wmeval_videos.id")),
        sa.Column("gt_id", sa.Integer, sa.ForeignKey("wmeval_gt.id"), nullable=False),
        sa.Column("expected", sa.Integer),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "wmeval_scores",
        sa.Column("item_id", sa.Integer, sa.ForeignKey("wmeval_items.id"), primary_key=True),
        sa.Column("score", sa.Integer, nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("unplayable", sa.Boolean, nullable=False),
        sa.Column("revision", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "wmeval_audit_log",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("at", sa.String(32), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("entry_hash", sa.String(64), nullable=False, unique=True),
    )
