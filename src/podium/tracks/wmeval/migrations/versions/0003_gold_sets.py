"""Gold items become videos with a known answer, imported as a gold set.

A gold item used to be the reference shown as the generated video (same bytes, same picture): an attention check
whose answer is always 3, which measures nothing. A gold set is now a folder in the team layout with a CSV of the
expected scores, stored as a team of kind ``gold`` (``wmeval_teams.kind``; every other team is ``team``) whose
videos carry their answer (``wmeval_videos.expected``). The old gold items (no video) are removed with their
answers: they were never part of a score.
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    """Add the two columns; remove the gold items that showed the reference as the generated video."""
    with op.batch_alter_table("wmeval_teams") as table:
        table.add_column(sa.Column("kind", sa.String(8), nullable=False, server_default="team"))
    with op.batch_alter_table("wmeval_videos") as table:
        table.add_column(sa.Column("expected", sa.Integer))
    items = sa.table("wmeval_items", sa.column("id", sa.Integer), sa.column("kind", sa.String),
                     sa.column("video_id", sa.Integer))  # fmt: skip
    scores = sa.table("wmeval_scores", sa.column("item_id", sa.Integer))
    old_gold = sa.select(items.c.id).where(items.c.kind == "gold", items.c.video_id.is_(None))
    op.execute(sa.delete(scores).where(scores.c.item_id.in_(old_gold)))
    op.execute(sa.delete(items).where(items.c.kind == "gold", items.c.video_id.is_(None)))
