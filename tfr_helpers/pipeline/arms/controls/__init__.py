"""The control arm of RQ2: the same refiner asked again on each refined feedback instance, without its content."""
