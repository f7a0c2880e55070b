"""The measurement suite: every measurement `roofline` is checked or fitted
against, as sections of one package (`python3 -m validation list`,
`python3 -m validation run SECTION... --out DIR`), and the results under
validation/results/ with their manifest.

Importing the package or any family module needs no GPU and no torch: each
section imports torch when it runs.
"""
