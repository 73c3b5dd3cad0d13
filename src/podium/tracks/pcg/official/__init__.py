"""The formats only ChatGPT4PCG speaks: its folder layout and order, log lines, text decoding, CSV and PNG.

The official TypeScript scripts (npm ``chatgpt4pcg``) and the Unity evaluator fix these details; reproducing them
exactly is what lets any single podium stage replace the official one. They live in the track, not in the core,
because no other competition speaks them, even where they look generic.
"""
