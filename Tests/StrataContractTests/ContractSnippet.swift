import Foundation
import Strata

func queries(_ db: Database, ann: Person, rex: Dog) throws {
    _ = db.objects(Person.self).where { $0.dog.age > 3 }
    _ = db.objects(Person.self).where { $0.dogs.age > 3 }                 // ANY dog
    _ = db.objects(Person.self).where { $0.dogs.count > 1 }
    _ = db.objects(Person.self).where { $0.address.city == "Lyon" }
    _ = db.objects(Person.self).where { $0.scores["math"] > 5 }
    _ = db.objects(Person.self).where { $0.nicknames.contains("Annie") }
    _ = db.objects(Dog.self).where { $0.owners.count == 0 }
    _ = db.objects(Dog.self).where { $0.name.in(["Rex", "Fido"]) }
    _ = db.objects(Dog.self).where { $0.age.contains(1...5) }
    _ = db.objects(Dog.self).where { $0.name.like("R*") }
    _ = db.objects(Dog.self).where { $0.name.starts(with: "r", options: [.caseInsensitive, .diacriticInsensitive]) }
    _ = db.objects(Person.self).filter("ANY dogs.age > %@ AND name BEGINSWITH[cd] %@", 3, "a")
    _ = db.objects(Person.self).filter("ALL dogs.age > 1 AND NONE dogs.name == 'Fido'")
    _ = db.objects(Person.self).filter("dogs.@count > 1 AND dogs.@avg.age >= 2.5")
    _ = db.objects(Person.self).filter("SUBQUERY(dogs, $d, $d.age > 3 AND $d.name BEGINSWITH 'R').@count > 0")
    _ = db.objects(Dog.self).filter("%@ IN owners", ann)
    _ = db.objects(Dog.self).filter("age BETWEEN {2, 5} AND name LIKE[c] 'r*'")
    _ = db.objects(Dog.self).filter("@links.Person.dogs.@count > 0")
    let dogs = db.objects(Dog.self)
    let total: Int = dogs.sum(of: \.age)
    let oldest: Int? = dogs.max(of: \.age)
    let youngest: Int? = dogs.min(of: \.age)
    let mean: Double? = dogs.average(of: \.age)
    let same: Int = dogs.sum(ofProperty: "age")
    _ = (total, oldest, youngest, mean, same)
    _ = db.objects(Person.self).sorted(by: [SortDescriptor(keyPath: "dog.age", ascending: false),
                                            SortDescriptor(keyPath: "name")])
    _ = dogs.sorted(by: \.age, ascending: false)
    _ = dogs.distinct(by: ["name"])
    _ = dogs.distinct(by: [\Dog.name, \Dog.age])
    _ = dogs.index(of: rex)
    _ = dogs.index(matching: { $0.age > 3 })
    let bigDogs: Results<Dog> = ann.dogs.where { $0.age > 3 }
    _ = ann.dogs.filter("age > 3").sorted(byKeyPath: "name")
    _ = ann.dogs.sum(of: \.age)
    _ = rex.owners.where { $0.name == "Ann" }
    _ = bigDogs.count
    do { _ = try dogs.filter(checking: "age >> 3") } catch let e as StrataError where e.code == .invalidQuery { }
}
