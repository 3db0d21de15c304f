"""The console in a real headless browser (Debian's chromium and chromedriver, driven by Selenium).

Run by scripts/console-browser, which starts a private PostgreSQL and iap-server and passes:
    IAP_CONSOLE_BASE        the server's URL
    IAP_CONSOLE_ADMIN_KEY   an admin key (made with iap-server create-key)
    IAP_CONSOLE_SCREENSHOTS the folder for the screenshots of the main pages (git-ignored)
    IAP_CONSOLE_STANDIN     appstore-standin, which signs the purchases the ledger's test submits
    IAP_CONSOLE_CHAIN       the stand-in's test chain, which the server trusts (APPSTORE_ROOT_CERTIFICATES)

Everything else (apps, products, keys of each role) is made here through the API, each test with its own
products. The browser runs without JavaScript of the page's own (the console has none; the CSP forbids it);
Selenium's own script is used only to forge a form, as an attacker's page would.
"""
import json
import os
import pathlib
import shutil
import subprocess
import time
import unittest
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

BASE = os.environ["IAP_CONSOLE_BASE"]
ADMIN = os.environ["IAP_CONSOLE_ADMIN_KEY"]
SHOTS = pathlib.Path(os.environ.get("IAP_CONSOLE_SCREENSHOTS", ".data/console-screenshots"))
APP = "com.example.console"
OTHER = "com.example.other"
HOSTILE_NAME = '<script>alert("name")</script><b>bold</b>'
HOSTILE_APP = 'Games <img src=x onerror=alert(1)>'
STANDIN = os.environ["IAP_CONSOLE_STANDIN"]
CHAIN = os.environ["IAP_CONSOLE_CHAIN"]
ACCOUNT = "6f6d2c1e-1f0b-4c55-9d59-6b656e636801"


def api(method, path, body=None, key=ADMIN, headers=None):
    """The API's answer (status, decoded JSON or None)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(BASE + path, data=data, method=method)
    request.add_header("Authorization", "Bearer " + key)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request) as response:
            text = response.read()
            return response.status, (json.loads(text) if text else None)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def must(method, path, body=None, key=ADMIN):
    status, answer = api(method, path, body, key)
    assert 200 <= status < 300, f"{method} {path}: {status} {answer}"
    return answer


def product(product_id, name=None, app=APP):
    must("POST", f"/v1/apps/{app}/products", {
        "productId": product_id, "referenceName": name or f"Ref {product_id}", "type": "CONSUMABLE",
        "price": {"currency": "USD", "amount": "0.99"},
        "localizations": [{"locale": "en-US", "displayName": "Coins", "description": "A pile of coins"}],
    })


def key(role, apps=None, name=None):
    body = {"role": role, "name": name or f"{role} in the browser"}
    if apps:
        body["apps"] = apps
    return must("POST", "/v1/keys", body)["token"]


def purchase(client, product_id, environment, quantity=1, account=None):
    """A transaction signed by the stand-in as the App Store signs one, submitted with the app's client key."""
    command = [STANDIN, "sign-transaction", "--chain", CHAIN, "--bundle", APP, "--product", product_id,
               "--type", "consumable", "--environment", environment, "--quantity", str(quantity)]
    if account:
        command += ["--app-account-token", account]
    jws = subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()
    body = {"signedTransaction": jws}
    if account:
        body["accountToken"] = account
    return must("POST", f"/v1/apps/{APP}/purchases", body, key=client)


def state(product_id, app=APP):
    return must("GET", f"/v1/apps/{app}/products/{product_id}")["state"]


class Console(unittest.TestCase):
    driver = None

    @classmethod
    def setUpClass(cls):
        SHOTS.mkdir(parents=True, exist_ok=True)
        must("POST", "/v1/apps", {"bundleId": APP, "name": HOSTILE_APP})
        must("POST", "/v1/apps", {"bundleId": OTHER, "name": "Other app"})
        for index in range(3):
            product(f"coins.{index + 1}00")
        product("hostile.name", HOSTILE_NAME)
        product("other.product", app=OTHER)
        # A product with some history and a live revision with a draft beside it, for the screenshots.
        product("pass.monthly", "Monthly pass")
        for action in ["approve", "submit", "start_review", "accept"]:
            must("POST", f"/v1/apps/{APP}/products/pass.monthly/actions", {"action": action, "reason": "checked in the sandbox"})
        must("PATCH", f"/v1/apps/{APP}/products/pass.monthly",
             {"localizations": [{"locale": "en-US", "displayName": "Monthly Pass", "description": "30 days of play"}]})
        cls.developer = key("developer")
        cls.auditor = key("auditor", name="Audit <i>team</i>")
        cls.scoped = key("auditor", apps=[OTHER], name="Other app's auditor")
        # The ledger: Production and Sandbox sales of coins.100, and a Production sale of a product the catalog
        # does not have (Apple charged for it: recorded all the same, flagged).
        client = key("client", apps=[APP])
        purchase(client, "coins.100", "Production", quantity=2)
        purchase(client, "coins.100", "Production", quantity=1)
        purchase(client, "coins.100", "Sandbox", quantity=5)
        purchase(client, "gift.card", "Production", account=ACCOUNT)
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium")
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         "--window-size=1280,1000", "--hide-scrollbars", "--force-device-scale-factor=1"]:
            options.add_argument(argument)
        cls.driver = webdriver.Chrome(options=options, service=Service(executable_path=shutil.which("chromedriver")))
        cls.driver.implicitly_wait(0)

    @classmethod
    def tearDownClass(cls):
        if cls.driver:
            cls.driver.quit()

    def setUp(self):
        self.driver.set_window_size(1280, 1000)
        self.driver.delete_all_cookies()

    # Steps ---------------------------------------------------------------------------------------------------

    def open(self, path):
        self.driver.get(BASE + path)

    def sign_in(self, token):
        self.open("/console/sign-in")
        field = self.driver.find_element(By.ID, "key")
        self.assertEqual(field.get_attribute("type"), "password")
        self.assertEqual(field.get_attribute("autocomplete"), "off")
        field.send_keys(token)
        self.click(By.ID, "sign-in")
        self.assertTrue(self.driver.current_url.endswith("/console/apps"), self.driver.current_url)
        self.assertNotIn(token, self.driver.current_url)

    def click(self, by, value, within=None):
        """Clicks the element (a link or a form's button; found in `within` if given) and waits for the page it
        leads to."""
        page = self.driver.find_element(By.TAG_NAME, "html")
        (within or self.driver).find_element(by, value).click()
        WebDriverWait(self.driver, 10).until(lambda _: self.left(page))

    @staticmethod
    def left(element):
        """Whether `element` belongs to a page the browser has left. Mid-navigation chromedriver may say so as
        "Node with given id does not belong to the document" instead of a stale reference: the same answer."""
        try:
            element.is_enabled()
            return False
        except StaleElementReferenceException:
            return True
        except WebDriverException as error:
            if "does not belong to the document" in str(error):
                return True
            raise

    def text(self):
        return self.driver.find_element(By.TAG_NAME, "body").text

    def shot(self, name, full=True):
        """Saves the page as SHOTS/name.png, the whole page tall when `full`."""
        if full:
            height = self.driver.execute_script("return document.documentElement.scrollHeight")
            width = self.driver.get_window_size()["width"]
            self.driver.set_window_size(width, min(max(height + 120, 600), 6000))
        self.driver.save_screenshot(str(SHOTS / f"{name}.png"))

    def no_alert(self):
        try:
            alert = self.driver.switch_to.alert
            self.fail(f"a script ran: alert {alert.text!r}")
        except NoAlertPresentException:
            pass

    # Tests -----------------------------------------------------------------------------------------------------

    def test_sign_in_find_approve_see_history_sign_out(self):
        self.open("/console/apps")
        self.assertTrue(self.driver.current_url.endswith("/console/sign-in"), "a page without a session asks to sign in")
        self.shot("sign-in", full=False)
        self.sign_in(self.developer)
        cookie = self.driver.get_cookie("iap_console_session")
        self.assertTrue(cookie["httpOnly"])
        self.assertEqual(cookie["sameSite"], "Strict")
        self.assertNotEqual(cookie["value"], self.developer)
        self.shot("apps")

        self.click(By.LINK_TEXT, APP)
        search = self.driver.find_element(By.ID, "q")
        search.send_keys("coins.2")
        self.click(By.ID, "filter")
        rows = self.driver.find_elements(By.CSS_SELECTOR, "table.list tbody th a")
        self.assertEqual([row.text for row in rows], ["coins.200"])
        self.driver.find_element(By.CSS_SELECTOR, "select#state option[value='PENDING_DEVELOPER_APPROVAL']").click()
        self.click(By.ID, "filter")
        self.assertEqual([row.text for row in self.driver.find_elements(By.CSS_SELECTOR, "table.list tbody th a")],
                         ["coins.200"])
        self.open(f"/console/apps/{APP}/products")
        self.shot("products")
        self.click(By.LINK_TEXT, "coins.200")

        self.assertEqual(self.driver.find_element(By.ID, "product-state").text, "PENDING_DEVELOPER_APPROVAL")
        self.assertIn("Nothing: the product is complete for approval.", self.text())
        current = self.driver.find_element(By.CSS_SELECTOR, "svg.diagram g.state.current")
        self.assertEqual(current.get_attribute("data-state"), "PENDING_DEVELOPER_APPROVAL")
        self.driver.find_element(By.ID, "reason").send_keys("Tested in the sandbox")
        self.click(By.ID, "action-approve")

        self.assertIn("approve done", self.driver.find_element(By.ID, "notice").text)
        self.assertEqual(self.driver.find_element(By.ID, "product-state").text, "APPROVED_BY_DEVELOPER")
        newest = self.driver.find_elements(By.CSS_SELECTOR, "ol.timeline li.event")[0]
        self.assertIn("approve", newest.find_element(By.CSS_SELECTOR, ".action").text)
        self.assertIn("developer in the browser", newest.find_element(By.CSS_SELECTOR, ".actor").text)
        self.assertIn("Tested in the sandbox", newest.find_element(By.CSS_SELECTOR, ".reason").text)
        self.assertEqual(state("coins.200"), "APPROVED_BY_DEVELOPER")

        self.open("/console/history?app=" + APP)
        self.assertIn("Tested in the sandbox", self.driver.find_elements(By.CSS_SELECTOR, "ol.timeline li.event")[0].text)
        self.shot("history")

        self.click(By.ID, "sign-out")
        self.assertTrue(self.driver.current_url.endswith("/console/sign-in"))
        self.assertIsNone(self.driver.get_cookie("iap_console_session"))
        self.open(f"/console/apps/{APP}/products")
        self.assertTrue(self.driver.current_url.endswith("/console/sign-in"), "signed out, the pages ask to sign in again")

    def test_the_product_page_and_the_lifecycle(self):
        self.sign_in(ADMIN)
        self.open(f"/console/apps/{APP}/products/pass.monthly")
        self.assertIn("The draft changes: Localizations.", self.text())
        changed = self.driver.find_elements(By.CSS_SELECTOR, "table.revisions tr.changed th")
        self.assertEqual([row.text for row in changed], ["Localizations changed"])
        self.assertEqual(self.driver.find_element(By.CSS_SELECTOR, "svg.diagram g.state.current").get_attribute("data-state"),
                         "READY_FOR_SALE")
        self.shot("product")
        self.driver.set_window_size(390, 844)
        self.shot("product-phone")
        self.driver.set_window_size(1280, 1000)
        self.open("/console/lifecycle")
        self.shot("lifecycle")
        self.open("/console/keys")
        self.shot("keys")
        self.open("/console/history/verify")
        self.assertIn("Chain verified", self.driver.find_element(By.ID, "verdict").text)
        self.shot("verify")

    def test_an_auditor_sees_no_action_buttons(self):
        self.sign_in(self.auditor)
        self.open(f"/console/apps/{APP}/products/coins.300")
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, "form#actions, main button[name='action']"), [])
        self.assertIn("takes no actions", self.driver.find_element(By.ID, "no-actions").text)
        self.assertEqual([a.text for a in self.driver.find_elements(By.CSS_SELECTOR, "header nav a")],
                         ["Apps", "History", "Lifecycle"], "no Keys page for an auditor")
        self.click(By.ID, "verify-app")
        self.assertIn("Chain verified", self.driver.find_element(By.ID, "verdict").text)

    def test_a_scoped_key_sees_only_its_apps(self):
        self.sign_in(self.scoped)
        self.assertEqual([a.text for a in self.driver.find_elements(By.CSS_SELECTOR, "table.list tbody th a")], [OTHER])
        self.open(f"/console/apps/{APP}/products")
        self.assertIn("Not found", self.text())
        self.assertNotIn("coins.100", self.text())
        self.open(f"/console/apps/{APP}/products/coins.100")
        self.assertIn("Not found", self.text())
        self.open(f"/console/history?app={APP}")
        self.assertNotIn("coins.100", self.text())
        self.open("/console/history")
        self.assertNotIn(APP, self.text())
        self.assertIn("other.product", self.text())

    def test_a_forged_csrf_token_is_refused(self):
        product("forged.csrf")
        self.sign_in(self.developer)
        self.open(f"/console/apps/{APP}/products/forged.csrf")
        self.driver.execute_script("document.querySelector('form#actions input[name=csrf]').value = 'forged'")
        self.click(By.ID, "action-approve")
        self.assertIn("security token is not this session's", self.text())
        self.assertEqual(state("forged.csrf"), "PENDING_DEVELOPER_APPROVAL")

    def test_a_stale_page_cannot_overwrite(self):
        product("stale.page")
        self.sign_in(self.developer)
        self.open(f"/console/apps/{APP}/products/stale.page")
        self.assertEqual(self.driver.find_element(By.ID, "product-version").text, "1")
        # Someone else changes the product after the page was loaded.
        must("PATCH", f"/v1/apps/{APP}/products/stale.page", {"referenceName": "Renamed meanwhile"})
        self.click(By.ID, "action-approve")
        notice = self.driver.find_element(By.ID, "notice").text
        self.assertIn("HTTP 412", notice)
        self.assertIn("changed since this page was loaded", notice)
        self.assertEqual(self.driver.find_element(By.ID, "product-version").text, "2", "the page now shows the product as it is")
        self.assertEqual(state("stale.page"), "PENDING_DEVELOPER_APPROVAL")
        self.shot("stale-page", full=False)

    def test_injected_html_is_shown_as_text(self):
        self.sign_in(self.auditor)
        self.open(f"/console/apps/{APP}/products/hostile.name")
        self.no_alert()
        self.assertIn(HOSTILE_NAME, self.text())
        self.assertIn(HOSTILE_APP, self.text())
        self.assertIn("Audit <i>team</i>", self.driver.find_element(By.CSS_SELECTOR, "header .who").text)
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, "main b, main img, header i, main script"), [])
        self.open(f"/console/apps/{APP}/products?q=hostile")
        self.no_alert()
        self.assertIn(HOSTILE_NAME, self.text())
        self.open("/console/history?productId=hostile.name")
        self.no_alert()
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, "main b, main script"), [])


    def test_an_auditor_reads_the_ledger_and_its_reconciliation(self):
        self.sign_in(self.auditor)
        self.click(By.ID, f"transactions-{APP}")
        rows = self.driver.find_elements(By.CSS_SELECTOR, "table.transactions tbody tr")
        self.assertEqual(len(rows), 4)
        self.shot("transactions")
        self.driver.find_element(By.CSS_SELECTOR, "select#environment option[value='Production']").click()
        self.click(By.ID, "filter")
        environments = [badge.text for badge in self.driver.find_elements(By.CSS_SELECTOR, "table.transactions tbody .badge")]
        self.assertEqual(environments, ["Production"] * 3)
        gift = self.driver.find_element(By.XPATH, "//table[contains(@class,'transactions')]//tr[td[contains(., 'gift.card')]]")
        self.assertIn("not as in the catalog", gift.text)
        self.assertIn(ACCOUNT, gift.text)
        self.click(By.CSS_SELECTOR, "th a", within=gift)
        self.assertIn("has no product gift.card", self.driver.find_element(By.ID, "catalog-mismatch").text)
        sources = self.driver.find_elements(By.CSS_SELECTOR, "table.sources tbody tr")
        self.assertEqual(len(sources), 1)
        self.assertIn("submission", sources[0].text)
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, "main button[name='action'], main form[method='post']"), [])
        self.shot("transaction")

        self.open(f"/console/apps/{APP}/transactions/summary")
        def total(environment, column):
            return [cell.text for cell in self.driver.find_elements(
                By.CSS_SELECTOR, f"#summary-{environment} tr.total td.{column}")]
        self.assertEqual(total("Production", "units"), ["4"], "2 + 1 coins and the gift card, no Sandbox units")
        self.assertEqual(total("Sandbox", "units"), ["5"])
        self.assertEqual(total("Production", "amount"), ["2.97"])
        self.shot("summary")


if __name__ == "__main__":
    started = time.monotonic()
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    print(f"console browser tests: {result.testsRun - failed} passed, {failed} failed "
          f"({time.monotonic() - started:.1f} s)")
    raise SystemExit(1 if failed or not result.testsRun else 0)
