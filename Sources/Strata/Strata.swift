// Strata: the object layer (Realm-style models over StrataStorage).
//
// This module is `Object`, `@Persisted`, `Database`, `Results` and the rest of the object model.
// The storage engine's error type is Strata's error type too.

@_exported import struct StrataStorage.StrataError
@_exported import struct StrataStorage.CompactionReport
@_exported import enum StrataStorage.CompactionPolicy
@_exported import struct StrataStorage.BackgroundCompactionStatus
@_exported import enum StrataStorage.Durability
