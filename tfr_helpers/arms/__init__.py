"""The study's arms, one package each (settings, records, stages, report, view), listed by the arms' registry
(``tfr_helpers.records.arm_registry``); no arm imports another."""
