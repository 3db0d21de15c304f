import CatalogCore
import Foundation
import Testing

/// The ids' own reader and writer, held to Foundation's.
@Suite("UUID text")
struct UUIDTextTests {
    /// 256 UUIDs whose bytes go through every value at every place.
    static let uuids = (0..<256).map { n in
        let bytes = (0..<16).map { UInt8(truncatingIfNeeded: n &* 31 &+ $0 &* 97) }
        return bytes.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
    }

    @Test("written as uuidString.lowercased(), read back in either case")
    func roundTrip() {
        for uuid in Self.uuids {
            #expect(uuid.lowercaseText == uuid.uuidString.lowercased())
            #expect(UUID(text: uuid.uuidString) == uuid)
            #expect(UUID(text: uuid.lowercaseText) == uuid)
            #expect(UUID(text: uuid.lowercaseText[...]) == uuid)
        }
    }

    /// Foundation's reader on Linux also takes some malformed texts (a digit missing, a hyphen out of place) and
    /// reads a wrong id from them; this one takes the RFC 4122 form only, which every id the service and Apple
    /// write has, and reads the same id from it.
    @Test("the RFC 4122 form only, read as UUID(uuidString:) reads it: each place of an id replaced, removed or doubled")
    func refusals() {
        let strays: [Character] = ["-", "g", "G", "0", "F", "é", "\n", " ", "{", "\u{0}", "x"]
        var texts = ["", "-", String(repeating: "-", count: 36), String(repeating: "0", count: 32),
                     "{3f2504e0-4f89-11d3-9a0c-0305e82c3301}", "3f2504e04f8911d39a0c0305e82c3301",
                     "3f2504e0-4f89-11d3-9a0c0-305e82c3301", "f2504e0-4f89-11d3-9a0c-0305e82c3301"]
        let valid = Array("3f2504e0-4f89-11d3-9A0C-0305E82C3301")
        for place in valid.indices {
            for stray in strays {
                var replaced = valid, removed = valid, added = valid
                replaced[place] = stray
                removed.remove(at: place)
                added.insert(stray, at: place)
                texts += [String(replaced), String(removed), String(added)]
            }
        }
        texts.append(String(valid) + "0")
        var taken = 0
        for text in texts {
            let characters = Array(text)
            let rfcForm = characters.count == 36 && characters.indices.allSatisfy { index in
                [8, 13, 18, 23].contains(index) ? characters[index] == "-" : characters[index].isHexDigit
            }
            let read = UUID(text: text)
            #expect((read != nil) == rfcForm, "\(text.debugDescription)")
            if rfcForm {
                taken += 1
                #expect(read == UUID(uuidString: text), "\(text.debugDescription)")
            }
            if UUID(uuidString: text) == nil { #expect(read == nil, "\(text.debugDescription)") }
        }
        #expect(taken > 36 && taken < texts.count / 2)
        #expect(UUID(text: "f2504e0-4f89-11d3-9a0c-0305e82c3301") == nil)
    }

    @Test("random ids are version 4 of the RFC's variant, and do not repeat")
    func random() {
        let uuids = (0..<1_000).map { _ in UUID.random() }
        #expect(Set(uuids).count == uuids.count)
        for uuid in uuids {
            let text = Array(uuid.lowercaseText)
            #expect(text[14] == "4")
            #expect("89ab".contains(text[19]))
        }
    }
}
