"""Execution: run independent jobs serially or on a pool of worker processes, behind one interface."""
