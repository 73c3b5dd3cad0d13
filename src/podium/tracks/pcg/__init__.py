"""The ChatGPT4PCG / LLMs4PCG track: character-like Science Birds levels from LLM responses.

Each stage of the official pipeline (qualify, extract, build, diversity, score, ...) is a module named by its
verb, usable as a library function and as a ``podium pcg`` command, reading and writing the official folder
layout and file formats so that any single stage can replace the official one.
"""
