"""What a submission's run cost and which judge judged it: kept with every judgment, for disputes and replays.

The program's capped stderr (its last bytes), wall and CPU time (and whether the CPU time is the whole process tree's,
from a cgroup, or the program's own rusage), its peak memory, how long it waited for a CPU when it reached the
wall limit (a starved run is judged again alone), and the judge's version (``judge.JUDGE_VERSION``):
a replay that rejudges differently reports "judge changed since" for a row an older judge judged, apart from a row
whose stored result was tampered with. NULL for rows judged before this revision.
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"


def upgrade() -> None:
    """Add the columns."""
    with op.batch_alter_table("dojo_submissions") as table:
        table.add_column(sa.Column("stderr", sa.Text(), nullable=True))
        table.add_column(sa.Column("wall_time_s", sa.Float(), nullable=True))
        table.add_column(sa.Column("cpu_time_s", sa.Float(), nullable=True))
        table.add_column(sa.Column("cpu_counted_by", sa.String(16), nullable=True))
        table.add_column(sa.Column("peak_memory_mib", sa.Float(), nullable=True))
        table.add_column(sa.Column("waited_s", sa.Float(), nullable=True))
        table.add_column(sa.Column("judge_version", sa.String(32), nullable=True))
