"""The pcg fixtures for its integration tests: the same tiny ViT the pcg unit tests build."""

from tests.tracks.pcg.conftest import tiny_vit  # noqa: F401  (a fixture, found by name)
