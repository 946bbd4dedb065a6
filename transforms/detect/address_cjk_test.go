package detect

import "testing"

// cjkAddrCases are Chinese and Japanese texts with the addresses the scan
// must report (marked «…»), or none.
var cjkAddrCases = []string{
	"«上海市长宁区延安西路2299号»",
	"寄到 «长宁市严中心7794号，邮编387686»。",
	"送货地址: «387686 长宁市 严路3491号»",
	"Ship it to «严中心7794号, 387686 长宁市».",
	"邮寄地址 «608520 河北省武汉市潘巷30号»",
	"Deliver to «成都市秀英区陈巷89号 (578825)».",
	"«广东省海门县高港区严街27号3单元502室 765226»",
	"我的地址是«徐胡同61号，675311 成都市»。",
	"邮编 «100022»",
	"Ship it to «9丁目6番3号, 668-5942 港本田町».",
	"Please send to «720-5983 西伊藤町, 9丁目9番4号».",
	"«大阪府大阪市北区梅田3丁目1番1号、530-0001»",
	"住所は«港区六本木6丁目10番1号»です。",
	"«〒150-0002 東京都渋谷区渋谷2-21-1 渋谷ヒカリエ 8F»",
	"«東京都港区六本木6丁目10番1号 六本木ヒルズ森タワー 42階»",
	"Ship it to «六本木1-2-3, 590-5204 田原村».",
	"«〒 590-5204 六本木1-2-3»",
	"Ship it to «长宁路123弄4号, 200050 上海市»",
	"«〒100-0001» 電話03-1234-5678",
	// Negatives.
	"第5号, 100-0001",
	"注文番号 123-4567 六本木1-2",
	"上海市数据中心2号机房",
	"上海市长宁区5号线",
	"通道3号",
	"这里3号",
	"3号楼",
	"第5号",
	"他在北京路开了3家店。",
	"订单 202403 上海市",
	"注文番号 123-4567 港区",
	"Order 123-4567 東京都港区",
	"3丁目の交差点",
	"邮件编号 387686",
}

// TestDigitFiltersCJK: scanDigits' filters visit every run the CJK
// readers start at (a postcode glued to kanji at the start is none).
func TestDigitFiltersCJK(t *testing.T) {
	for _, line := range append(cjkAddrCases, "000-0000区0-0", "086-6240 南中村区 7丁目6番2号", "6丁目15番19号\n北佐藤町 862-3200") {
		text, _ := unmark(line)
		checkDigitFilters(t, text)
	}
}

func TestAddressShapeCJK(t *testing.T) {
	// An address key's value: weak street types (桥 侬 旁 中心) too.
	for _, s := range []string{"萧街44号", "董巷9号", "任桥82号", "孔旁7号", "潘侬19号", "严中心7794号", "马路65号", "上海市长宁区延安西路2299号"} {
		if !addressShape(s) {
			t.Errorf("addressShape(%q) = false", s)
		}
	}
	for _, s := range []string{"3号", "第5号", "订单号 20240315001", "2号线", "数据中心2号机房", "5个"} {
		if addressShape(s) {
			t.Errorf("addressShape(%q) = true", s)
		}
	}
}

func FuzzAddressesCJK(f *testing.F) {
	for _, line := range cjkAddrCases {
		text, _ := unmark(line)
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := nextDigit(s, 0); i < len(s); i = nextDigit(s, skipDigits(s, i)) {
			if a, b := cjkAddress(s, i); b > a && (a < 0 || b > len(s) || a > i) {
				t.Fatalf("cjkAddress(%q, %d) = %d, %d", s, i, a, b)
			}
		}
		cjkStreetShape(s)
	})
}
