"""The suite's case catalogues: scan cases per family and the input classes.

Layering (each module imports only those above it): guard -> scan (ScanCase, keys,
placement) -> aes_kernels, kernels (a case run on a kernel and on the model)
-> mask_shapes, segments, aes_segments, limits -> common (the catalogue the scan
families share) -> aes_family -> families (the registry of families);
catalogue (adversarial inputs) feeds common; classes and keystream (input
classes) build on families.
"""
