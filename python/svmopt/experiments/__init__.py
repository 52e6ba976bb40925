"""The papers' experimental protocols, one module per paper, each writing a report under docs/reproductions/.

* :mod:`svmopt.experiments.maggioni_spinelli` -- paper 000 (RobustSVC)
* :mod:`svmopt.experiments.baldomero_naranjo` -- paper 001 (RampLossSVC and its comparison models)
* :mod:`svmopt.experiments.de_brabanter` -- paper 002 (FixedSizeLSSVC / FixedSizeLSSVR)
* :mod:`svmopt.experiments.kumar_ramakrishnan` -- paper 003 (EllipsoidPSOClassifier)
"""
