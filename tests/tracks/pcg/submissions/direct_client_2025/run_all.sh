#!/bin/sh
for f in letter_*.py; do python "$f"; done
