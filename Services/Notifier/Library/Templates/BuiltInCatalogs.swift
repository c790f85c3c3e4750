/// The catalogs shipped with the notifier. Texts follow what a phone shows for the same
/// event (zh-Hans wording from the destination-tracking seed: "您已经到达目的地!").
enum BuiltInCatalogs {
    static let english: [NotificationKind: (title: String, body: String)] = [
        .enter: ("Entered {region}", "You are near {region}"),
        .exit: ("Left {region}", "You have left the {region} area"),
        .dwell: ("At {region}", "You have been at {region} for a while"),
        .mergedEnter: ("{count} regions entered", "Entered {regions}"),
        .visitArrival: ("Arrived", "{device} arrived at a place at {time}"),
        .visitDeparture: ("Departed", "{device} left a place at {time}"),
        .authorization: ("Location access changed", "{client} location access is now {status} ({accuracy} accuracy)"),
        .destinationProgress: ("Destination", "{distance} m to the destination"),
        .destinationArrival: ("Destination", "You have arrived at your destination!"),
        .request: ("{title}", "{body}"),
    ]

    static let simplifiedChinese: [NotificationKind: (title: String, body: String)] = [
        .enter: ("进入 {region}", "您已进入 {region} 附近"),
        .exit: ("离开 {region}", "您已离开 {region} 区域"),
        .dwell: ("停留在 {region}", "您已在 {region} 停留一段时间"),
        .mergedEnter: ("已进入 {count} 个区域", "已进入 {regions}"),
        .visitArrival: ("到达", "{device} 于 {time} 到达一个地点"),
        .visitDeparture: ("离开", "{device} 于 {time} 离开一个地点"),
        .authorization: ("定位权限已更改", "{client} 的定位权限现在是 {status}（{accuracy} 精度）"),
        .destinationProgress: ("目的地", "距离目的地还有{distance}米"),
        .destinationArrival: ("目的地", "您已经到达目的地!"),
        .request: ("{title}", "{body}"),
    ]

    static let all: [String: [NotificationKind: (title: String, body: String)]] = [
        "en": english,
        "zh-Hans": simplifiedChinese,
    ]
}
