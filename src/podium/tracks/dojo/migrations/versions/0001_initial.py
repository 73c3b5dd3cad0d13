"""Initial dojo tables: users, seasons, problems, submissions, audit log."""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    """Create the tables as of the first release (a snapshot: later changes get their own revision)."""
    op.create_table(
        "dojo_users",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("token_sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "dojo_seasons",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("rules_json", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "dojo_problems",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("season_id", sa.Integer, sa.ForeignKey("dojo_seasons.id"), nullable=False),
        sa.Column("slug", sa.String(64), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("statement", sa.Text, nullable=False),
        sa.Column("offset", sa.Integer, nullable=False),
        sa.Column("n_visible", sa.Integer, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("setter_id", sa.Integer, sa.ForeignKey("dojo_users.id"), nullable=False),
        sa.Column("setter_source", sa.LargeBinary, nullable=False),
        sa.Column("terms", sa.Text),
        sa.Column("salt_hex", sa.String(64)),
        sa.Column("setter_commit", sa.String(64)),
        sa.Column("seq_commit", sa.String(64)),
        sa.Column("validation_json", sa.Text),
        sa.Column("open_at", sa.String(32)),
        sa.Column("freeze_at", sa.String(32)),
        sa.Column("reveal_at", sa.String(32)),
        sa.Column("opened_at", sa.String(32)),
        sa.Column("freeze_started_at", sa.String(32)),
        sa.Column("revealed_at", sa.String(32)),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.UniqueConstraint("season_id", "slug", name="uq_dojo_problem_slug"),
    )
    op.create_table(
        "dojo_submissions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("problem_id", sa.Integer, sa.ForeignKey("dojo_problems.id"), nullable=False, index=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("dojo_users.id"), nullable=False, index=True),
        sa.Column("source", sa.LargeBinary, nullable=False),
        sa.Column("solver_hash", sa.String(64)),
        sa.Column("length", sa.Integer),
        sa.Column("method_tag", sa.String(64), nullable=False),
        sa.Column("notes", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("practice", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("claimed_by", sa.String(128)),
        sa.Column("claimed_at", sa.String(32)),
        sa.Column("verdict", sa.String(16)),
        sa.Column("reason", sa.Text),
        sa.Column("stage_pass", sa.Boolean),
        sa.Column("reward_correct", sa.Boolean),
        sa.Column("backend", sa.String(32)),
        sa.Column("isolated", sa.Boolean),
        sa.Column("judged_at", sa.String(32)),
    )
    op.create_table(
        "dojo_audit_log",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("at", sa.String(32), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("entry_hash", sa.String(64), nullable=False, unique=True),
    )
