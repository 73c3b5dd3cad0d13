"""Training and measuring the embedded letter classifier of the pcg track (needs torch: the ``hf`` extra).

Run from the repository root: ``python -m tools.pcg_classifier.train_classifier --help``. The weights it makes
ship in the package (``src/podium/tracks/pcg/classifiers/letter_cnn.npz``); this code, the hand-designed letter
sets (``data/block_letters/``) and the evaluation figures (``letter_cnn.json``) do not, as no command needs them.
"""
