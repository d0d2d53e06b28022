"""What tests in several folders share: paths, loopback servers, the memory-capped runner, the two implementations
and the differential strategies. A helper used by one folder only lives in that folder."""
