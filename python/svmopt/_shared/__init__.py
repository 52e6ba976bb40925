"""What every model family uses and no family owns: validation, cv splits, the memory budget and run time, Dask
reductions, the held-out selection among candidates, the HiGHS layer, the hinge-loss cutting planes, prototypes and
their bandwidth. Private to svmopt: a family imports these modules, users import the families."""
