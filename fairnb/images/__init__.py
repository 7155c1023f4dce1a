"""Images: face / non-face data with attributes, attribute flippers, detector fairness measures.

The input space is ``fairnb.domains.ImageDomain`` (images and their flips); the searches are
``neuronfair_image``, ``adf_image`` and ``eidig_image`` (``fairnb.search.methods.image_flip``); ``FlipPart`` splits a flip
into its exposure and hue parts (controls) and ``compare_flips`` runs a search with each; retraining goes
through ``fairnb.mitigate``. Tutorial: ``notebooks/05_images_face_detector.ipynb``.

Numpy only at import: TensorFlow loads when a Keras detector is built or trained (``fairnb.images.detector``)
or an ``FGSMFlip`` is fitted, scikit-image when the tinted LFW set is loaded.

Example
-------
>>> from fairnb.images import make_faces, ExactFlip
>>> data = make_faces(n=30, size=16, random_state=0)
>>> faces = np.flatnonzero(data.y == 1)
>>> flip = ExactFlip(data).flip(data.X[faces], index=faces)
>>> bool(flip.success.all()), bool(((flip.X_flipped >= 0) & (flip.X_flipped <= 1)).all())
(True, True)
"""
import numpy as np

from .audit import FlipComparison, compare_flips
from .controls import FlipPart, flip_part, luminance
from .dataset import ImageDataset
from .faces import face_params, face_regions, make_faces, render_faces
from .fairness import AttributeEffect, attribute_effect, detection_rate, measure_detector
from .flips import AttributeFlipper, ExactFlip, FGSMFlip, FlipResult
from .folder import load_image_folder
from .lfw import load_tinted_lfw, tint_images

__all__ = ["ImageDataset", "make_faces", "face_params", "render_faces", "face_regions", "load_tinted_lfw",
           "tint_images", "load_image_folder", "AttributeFlipper", "FlipResult", "FGSMFlip", "ExactFlip",
           "AttributeEffect", "attribute_effect", "detection_rate", "measure_detector", "FlipPart", "flip_part",
           "luminance", "compare_flips", "FlipComparison"]
