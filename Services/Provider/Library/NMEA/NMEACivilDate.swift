/// A calendar date (proleptic Gregorian, UTC) as receivers and log headers give it.
public struct NMEACivilDate: Sendable, Equatable {
    public var year: Int
    public var month: Int
    public var day: Int

    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), (1...31).contains(day), (1970...2200).contains(year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Days since 1970-01-01 (Howard Hinnant's days-from-civil algorithm).
    public var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthIndex = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Reads the date from a log comment such as `# Date: 2005-03-11` or
    /// `# Date = 2015-03-10` (gpsd's regression logs), nil for other comments.
    public init?(logComment line: Substring) {
        guard line.utf8.first == 0x23, let dateEnd = Self.endOfDateWord(in: line) else { return nil }
        var rest = line[dateEnd...].drop { $0 == " " || $0 == ":" || $0 == "=" || $0 == "\t" }
        func number(_ count: Int) -> Int? {
            let digits = rest.prefix(count)
            guard digits.count == count, digits.allSatisfy(\.isASCII), let value = Int(digits) else { return nil }
            rest = rest.dropFirst(count)
            return value
        }
        guard let year = number(4), rest.popFirst() == "-", let month = number(2), rest.popFirst() == "-",
              let day = number(2) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// Where the first "Date" in the line ends. Searched in the UTF-8 bytes: comment lines
    /// are read for every log, and a byte search costs a fraction of a Character one.
    private static func endOfDateWord(in line: Substring) -> Substring.Index? {
        let utf8 = line.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex {
            if utf8[index] == 0x44, utf8[index...].starts(with: "Date".utf8) {
                return utf8.index(index, offsetBy: 4)
            }
            index = utf8.index(after: index)
        }
        return nil
    }

    /// Expands a two-digit RMC year. With a log date the century is the one that puts
    /// the year closest to it (as gpsd uses `# Date:`); without, 1980–2079.
    static func fullYear(twoDigit yy: Int, near reference: NMEACivilDate?) -> Int {
        guard let reference else { return yy < 80 ? 2000 + yy : 1900 + yy }
        let century = reference.year / 100 * 100
        let candidates = [century - 100 + yy, century + yy, century + 100 + yy]
        return candidates.min { abs($0 - reference.year) < abs($1 - reference.year) } ?? century + yy
    }
}
