package webpage

import (
	"slices"

	"golang.org/x/text/language"
	"golang.org/x/text/message/catalog"
)

// messages is every text the payer's pages show, in one place: the English
// text, which is also the key the pages ask for, then Russian and Kazakh.
// A text with a %s takes the argument the page gives it. Names stay as
// they are in every language: Sandbox Bank, 3-D Secure.
var messages = []struct{ en, ru, kk string }{
	// The hosted payment page (checkout).
	{"Pay %s", "Оплата: %s", "Төлем: %s"},
	{"TEST PAYMENT", "ТЕСТОВЫЙ ПЛАТЁЖ", "СЫНАҚ ТӨЛЕМІ"},
	{"Choose how to pay", "Выберите способ оплаты", "Төлем тәсілін таңдаңыз"},
	{"Bank card", "Банковская карта", "Банк картасы"},
	{"SBP (Faster Payments)", "СБП (Система быстрых платежей)", "СБП (Жылдам төлемдер жүйесі)"},
	{"QR in your bank's app", "QR в приложении вашего банка", "Банк қосымшасындағы QR"},
	{"No payment method is available for this payment.", "Для этого платежа нет доступных способов оплаты.", "Бұл төлем үшін қолжетімді төлем тәсілі жоқ."},
	{"Payment page unavailable", "Страница оплаты недоступна", "Төлем беті қолжетімсіз"},
	{"This payment page was already used, has expired, or does not exist. Return to the shop to try again.",
		"Эта страница оплаты уже использована, устарела или не существует. Вернитесь в магазин, чтобы попробовать снова.",
		"Бұл төлем беті бұрын пайдаланылған, мерзімі өткен немесе мүлде жоқ. Қайталап көру үшін дүкенге оралыңыз."},
	{"Form expired", "Форма устарела", "Форманың мерзімі өтті"},
	{"Open the payment page again from the shop.", "Откройте страницу оплаты в магазине ещё раз.", "Төлем бетін дүкеннен қайта ашыңыз."},
	{"Form not accepted", "Форма не принята", "Форма қабылданбады"},
	{"Payment declined", "Платёж отклонён", "Төлем қабылданбады"},
	{"The shop declined this payment. Return to the shop to try again.",
		"Магазин отклонил этот платёж. Вернитесь в магазин, чтобы попробовать снова.",
		"Дүкен бұл төлемді қабылдамады. Қайталап көру үшін дүкенге оралыңыз."},
	{"Method unavailable", "Способ оплаты недоступен", "Төлем тәсілі қолжетімсіз"},
	{"Choose another payment method.", "Выберите другой способ оплаты.", "Басқа төлем тәсілін таңдаңыз."},
	{"Try again", "Попробуйте ещё раз", "Қайталап көріңіз"},
	{"Too many payments are being made through this shop's links right now. Try again in a minute.",
		"Через ссылки этого магазина сейчас платят слишком часто. Попробуйте через минуту.",
		"Қазір осы дүкеннің сілтемелері арқылы тым жиі төлейді. Бір минуттан кейін қайталап көріңіз."},
	{"The bank is not answering right now. Try again in a minute.",
		"Банк сейчас не отвечает. Попробуйте через минуту.",
		"Банк қазір жауап бермей тұр. Бір минуттан кейін қайталап көріңіз."},
	{"Error", "Ошибка", "Қате"},
	{"Something went wrong; try again.", "Что-то пошло не так, попробуйте ещё раз.", "Бірдеңе дұрыс болмады, қайталап көріңіз."},

	// The embedded payment form (internal/embed).
	{"Payment form unavailable", "Форма оплаты недоступна", "Төлем формасы қолжетімсіз"},
	{"This payment form opens only inside the shop's page.",
		"Эта форма оплаты открывается только на странице магазина.",
		"Бұл төлем формасы тек дүкен бетінде ашылады."},
	{"This payment form was opened on another page.",
		"Эта форма оплаты открыта на другой странице.",
		"Бұл төлем формасы басқа бетте ашылған."},
	{"This payment form can no longer be used: the payment was closed or has expired. Reload the page to start again.",
		"Этой формой оплаты больше нельзя воспользоваться: платёж закрыт или его срок истёк. Обновите страницу, чтобы начать заново.",
		"Бұл төлем формасын енді пайдалану мүмкін емес: төлем жабылған немесе мерзімі өткен. Қайта бастау үшін бетті жаңартыңыз."},
	{"The shop declined this payment; no money was taken.",
		"Магазин отклонил этот платёж; деньги не списаны.",
		"Дүкен бұл төлемді қабылдамады; ақша алынған жоқ."},
	{"Payment accepted", "Платёж принят", "Төлем қабылданды"},
	{"Thank you: the shop has your payment.", "Спасибо: магазин получил ваш платёж.", "Рақмет: дүкен төлеміңізді алды."},
	{"The payment did not go through; no money was taken. To try again, reload the page.",
		"Платёж не прошёл; деньги не списаны. Чтобы попробовать снова, обновите страницу.",
		"Төлем өтпеді; ақша алынған жоқ. Қайталап көру үшін бетті жаңартыңыз."},
	{"Waiting for the bank", "Ждём ответа банка", "Банктің жауабын күтудеміз"},
	{"The bank is confirming the payment; this page updates by itself.",
		"Банк подтверждает платёж; страница обновится сама.",
		"Банк төлемді растап жатыр; бет өздігінен жаңарады."},
	{"Return to the shop", "Вернуться в магазин", "Дүкенге оралу"},
	{"Payment not made", "Платёж не выполнен", "Төлем жасалмады"},
	{"You left the bank's page before paying. To try again, reload the page.",
		"Вы ушли со страницы банка, не оплатив. Чтобы попробовать снова, обновите страницу.",
		"Сіз банк бетінен төлемей шықтыңыз. Қайталап көру үшін бетті жаңартыңыз."},
	{"The shop is still checking this payment. Try again in a few seconds.",
		"Магазин ещё проверяет этот платёж. Попробуйте через несколько секунд.",
		"Дүкен бұл төлемді әлі тексеріп жатыр. Бірнеше секундтан кейін қайталап көріңіз."},
	{"There is no such payment page.", "Такой страницы оплаты нет.", "Мұндай төлем беті жоқ."},

	// The payment link page.
	{"Amount to pay", "Сумма к оплате", "Төленетін сома"},
	{"From %s to %s", "От %s до %s", "%s бастап %s дейін"},
	{"Enter an amount from %s to %s.", "Введите сумму от %s до %s.", "%s бастап %s дейінгі соманы енгізіңіз."},
	{"Enter the amount in digits, for example 1500 or 1500.50.",
		"Введите сумму цифрами, например 1500 или 1500,50.",
		"Соманы цифрмен енгізіңіз, мысалы 1500 немесе 1500,50."},
	{"It is not clear whether %s means thousands or a fraction. Enter the amount as 1500 or 1500.50.",
		"Непонятно, тысячи или дробная часть в записи %s. Введите сумму так: 1500 или 1500,50.",
		"%s жазбасында мыңдық па, әлде бөлшек бөлік пе, түсініксіз. Соманы былай енгізіңіз: 1500 немесе 1500,50."},
	{"Payment link not found", "Ссылка на оплату не найдена", "Төлем сілтемесі табылмады"},
	{"Check the address or ask the shop for a new link.",
		"Проверьте адрес или попросите у магазина новую ссылку.",
		"Мекенжайды тексеріңіз немесе дүкеннен жаңа сілтеме сұраңыз."},
	{"Already paid", "Уже оплачено", "Төленіп қойған"},
	{"This link has already been paid. No second payment is needed.",
		"Эта ссылка уже оплачена. Повторная оплата не нужна.",
		"Бұл сілтеме бойынша төлем жасалып қойған. Қайта төлеудің қажеті жоқ."},
	{"Link expired", "Срок действия ссылки истёк", "Сілтеменің мерзімі өтті"},
	{"This payment link has expired. Ask the shop for a new one.",
		"Срок действия этой ссылки на оплату истёк. Попросите у магазина новую.",
		"Бұл төлем сілтемесінің мерзімі өтті. Дүкеннен жаңасын сұраңыз."},
	{"Link deactivated", "Ссылка отключена", "Сілтеме өшірілген"},
	{"The shop has turned this payment link off. Ask the shop for a new one.",
		"Магазин отключил эту ссылку на оплату. Попросите у магазина новую.",
		"Дүкен бұл төлем сілтемесін өшірді. Дүкеннен жаңасын сұраңыз."},
	{"Payment in progress", "Платёж уже выполняется", "Төлем орындалуда"},
	{"A payment through this link has been started and is not finished yet. Wait for it to finish; if it fails, the link can be paid again.",
		"По этой ссылке уже начат платёж, и он ещё не завершён. Дождитесь его завершения; если он не пройдёт, ссылку можно будет оплатить снова.",
		"Бұл сілтеме бойынша төлем басталды, бірақ әлі аяқталған жоқ. Оның аяқталуын күтіңіз; егер өтпесе, сілтемені қайта төлеуге болады."},
	{"Continue the payment", "Продолжить оплату", "Төлемді жалғастыру"},
	{"Back to the shop", "Вернуться в магазин", "Дүкенге оралу"},
	{"Payment unavailable", "Оплата недоступна", "Төлем қолжетімсіз"},
	{"The shop cannot take this payment right now. Try again later or contact the shop.",
		"Магазин сейчас не может принять этот платёж. Попробуйте позже или свяжитесь с магазином.",
		"Дүкен қазір бұл төлемді қабылдай алмайды. Кейінірек қайталап көріңіз немесе дүкенге хабарласыңыз."},
	{"Open the payment link again.", "Откройте ссылку на оплату ещё раз.", "Төлем сілтемесін қайта ашыңыз."},
	{"This form was already sent. Open the payment link again.",
		"Эта форма уже отправлена. Откройте ссылку на оплату ещё раз.",
		"Бұл форма жіберіліп қойған. Төлем сілтемесін қайта ашыңыз."},
	{"Your payment is being created. Try again in a few seconds.",
		"Платёж создаётся. Попробуйте ещё раз через несколько секунд.",
		"Төлем жасалуда. Бірнеше секундтан кейін қайталап көріңіз."},

	// The sandbox bank's pages: card, 3-D Secure, the payment app.
	{"SANDBOX · no money moves", "ТЕСТОВАЯ СРЕДА · деньги не списываются", "СЫНАҚ ОРТАСЫ · ақша есептен шығарылмайды"},
	{"Payment %s", "Платёж %s", "Төлем %s"},
	{"Pay", "Оплатить", "Төлеу"},
	{"Decline: insufficient funds", "Отказ: недостаточно средств", "Бас тарту: қаражат жеткіліксіз"},
	{"Decline: card expired", "Отказ: срок действия карты истёк", "Бас тарту: картаның мерзімі өткен"},
	{"Decline: issuer declined", "Отказ: банк-эмитент отклонил", "Бас тарту: эмитент банк қабылдамады"},
	{"Leave without paying", "Уйти без оплаты", "Төлемей шығу"},
	{"The sandbox never asks for a card number.", "Тестовый банк никогда не спрашивает номер карты.", "Сынақ банкі карта нөмірін ешқашан сұрамайды."},
	{"Confirm the payment", "Подтвердите платёж", "Төлемді растаңыз"},
	{"Sandbox code:", "Тестовый код:", "Сынақ коды:"},
	{"Any other code fails.", "С любым другим кодом платёж не пройдёт.", "Басқа кез келген кодпен төлем өтпейді."},
	{"One-time code", "Одноразовый код", "Бір реттік код"},
	{"Confirm", "Подтвердить", "Растау"},
	{"SBP", "СБП", "СБП"},
	{"Sandbox Bank app", "приложение Sandbox Bank", "Sandbox Bank қосымшасы"},
	{"Recipient: %s", "Получатель: %s", "Алушы: %s"},
	{"Confirm payment", "Подтвердить оплату", "Төлемді растау"},
	{"Decline", "Отклонить", "Бас тарту"},
	{"Continue", "Продолжить", "Жалғастыру"},
	{"Not found", "Не найдено", "Табылмады"},
	{"There is no such sandbox payment.", "Такого тестового платежа нет.", "Мұндай сынақ төлемі жоқ."},
	{"Already processed", "Уже обработано", "Бұрын өңделген"},
	{"This operation was already processed; nothing was changed.",
		"Эта операция уже обработана, ничего не изменилось.",
		"Бұл операция бұрын өңделген, ештеңе өзгерген жоқ."},
	{"The bank has already decided on this payment.", "Банк уже принял решение по этому платежу.", "Банк бұл төлем бойынша шешімін қабылдап қойған."},
	{"The sandbox bank could not process this; try again.", "Тестовый банк не смог это обработать, попробуйте ещё раз.", "Сынақ банкі мұны өңдей алмады, қайталап көріңіз."},
	{"Open the payment page again.", "Откройте страницу оплаты ещё раз.", "Төлем бетін қайта ашыңыз."},
	{"Unknown action", "Неизвестное действие", "Белгісіз әрекет"},
	{"Choose one of the buttons.", "Нажмите одну из кнопок.", "Батырмалардың бірін басыңыз."},
	{"Done", "Готово", "Дайын"},
	{"The sandbox bank has your answer. You can close this page.",
		"Тестовый банк получил ваш ответ. Эту страницу можно закрыть.",
		"Сынақ банкі жауабыңызды алды. Бұл бетті жабуға болады."},
}

// allMessages are the payer's texts and the dashboard's.
var allMessages = slices.Concat(messages, dashboardMessages, dashboardMoneyMessages, dashboardDeveloperMessages, dashboardUserMessages)

// catalogue is messages as x/text's message catalogue.
var catalogue = buildCatalogue()

func buildCatalogue() catalog.Catalog {
	b := catalog.NewBuilder(catalog.Fallback(language.English))
	for _, m := range allMessages {
		for _, tr := range []struct {
			tag  language.Tag
			text string
		}{{language.English, m.en}, {language.Russian, m.ru}, {language.Kazakh, m.kk}} {
			if err := b.SetString(tr.tag, m.en, tr.text); err != nil {
				panic("webpage: catalogue: " + err.Error())
			}
		}
	}
	return b
}

// HasMessage reports whether the catalogue has key; the pages' tests use
// it to find a text their templates show that was left out of it.
func HasMessage(key string) bool {
	for _, m := range allMessages {
		if m.en == key {
			return true
		}
	}
	return false
}

// Translated reports whether the catalogue has key with a text in lang,
// one of payd.Locales: the pages' tests use it to find a text, such as
// the words of an enum's value, that some language lacks.
func Translated(lang, key string) bool {
	for _, m := range allMessages {
		if m.en != key {
			continue
		}
		switch lang {
		case "en":
			return m.en != ""
		case "ru":
			return m.ru != ""
		case "kk":
			return m.kk != ""
		}
	}
	return false
}
