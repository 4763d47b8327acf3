// The writing process of the cross-process notification tests (FollowProcessTests): opens a
// database of the kill workload's classes writable and runs the commands it reads, one a line,
// from standard input, answering each on standard output (flushed at once):
//
//   StrataFollowWriter DIRECTORY [SEGMENT-SIZE]
//
//   add ID NAME AGE     adds a KillPerson          → ok add ID NAME AGE
//   age ID AGE          sets a person's age         → ok age ID AGE
//   delete ID           deletes a person            → ok delete ID
//   burst FIRST N       N commits, adding persons FIRST, FIRST + 1, … one each → ok burst FIRST N
//   compact             compacts the database       → ok compact
//   (end of input)      exits with status 0
//
// `ready` is printed once the database is open; `E message` reports a failure (then exit 1).

import Foundation
@_spi(Testing) import Strata
import StrataKillWorkload

func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func person(_ id: Int, in db: Database) throws -> KillPerson {
    guard let person = db.object(ofType: KillPerson.self, forPrimaryKey: id) else {
        throw StrataError(.invalidArgument, "no person \(id)")
    }
    return person
}

func run(_ command: [Substring], on db: Database) throws {
    switch (command.first, command.count) {
    case ("add", 4):
        try db.write {
            let person = KillPerson()
            person.id = Int(command[1]) ?? 0
            person.name = String(command[2])
            person.age = Int(command[3]) ?? 0
            try db.add(person)
        }
    case ("age", 3):
        try db.write { try person(Int(command[1]) ?? 0, in: db).age = Int(command[2]) ?? 0 }
    case ("delete", 2):
        try db.write { try db.delete(person(Int(command[1]) ?? 0, in: db)) }
    case ("burst", 3):
        let first = Int(command[1]) ?? 0
        for id in first..<(first + (Int(command[2]) ?? 0)) {
            try db.write {
                let person = KillPerson()
                person.id = id
                person.name = "burst"
                try db.add(person)
            }
        }
    case ("compact", 1):
        try db.compact()
    default:
        throw StrataError(.invalidArgument, "unknown command \(command.joined(separator: " "))")
    }
}

do {
    let arguments = CommandLine.arguments
    guard (2...3).contains(arguments.count), arguments.count == 2 || Int(arguments[2]) != nil else {
        throw StrataError(.invalidArgument, "usage: StrataFollowWriter DIRECTORY [SEGMENT-SIZE]")
    }
    var configuration = Database.Configuration(directory: URL(fileURLWithPath: arguments[1]), objectTypes: killObjectTypes)
    if arguments.count == 3 { configuration.storageOptions.segmentSize = Int(arguments[2]) ?? 0 }
    let db = try Database(configuration: configuration)
    report("ready")
    while let line = readLine() {
        try run(line.split(separator: " "), on: db)
        report("ok \(line)")
    }
} catch {
    report("E \(error)")
    exit(1)
}
