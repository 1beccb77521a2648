import { defineMessages } from '../../i18n/define';

export const wallet = defineMessages({
  title: { id: 'wallet.title', defaultMessage: 'My wallet', description: 'Wallet page title' },
  balance: { id: 'wallet.balance', defaultMessage: 'Balance', description: 'Current balance' },
  used: { id: 'wallet.used', defaultMessage: 'Used', description: 'Used quota' },
  quotaUnits: {
    id: 'wallet.quotaUnits',
    defaultMessage: '{quota} quota units',
    description: 'The balance in raw quota units',
  },
  requests: { id: 'wallet.requests', defaultMessage: 'Requests', description: 'Request count' },
});

export const redeem = defineMessages({
  title: { id: 'wallet.redeem.title', defaultMessage: 'Redeem a code', description: 'Redeem card title' },
  placeholder: {
    id: 'wallet.redeem.placeholder',
    defaultMessage: 'Enter the redemption code',
    description: 'Redeem code placeholder',
  },
  submit: { id: 'wallet.redeem.submit', defaultMessage: 'Redeem', description: 'Redeem button' },
  buy: { id: 'wallet.redeem.buy', defaultMessage: 'Buy a code', description: 'Open the top-up link' },
  success: {
    id: 'wallet.redeem.success',
    defaultMessage: 'Redeemed: {amount} added to your balance',
    description: 'Redeem success',
  },
});

export const topUp = defineMessages({
  title: { id: 'wallet.topUp.title', defaultMessage: 'Online top-up', description: 'Online top-up card title' },
  amount: { id: 'wallet.topUp.amount', defaultMessage: 'Amount', description: 'Top-up amount field' },
  amountHint: {
    id: 'wallet.topUp.amountHint',
    defaultMessage: 'Minimum {min}',
    description: 'Minimum top-up amount',
  },
  payable: { id: 'wallet.topUp.payable', defaultMessage: 'To pay: {money}', description: 'Payable amount' },
  alipay: { id: 'wallet.topUp.alipay', defaultMessage: 'Alipay', description: 'Pay by Alipay' },
  wechat: { id: 'wallet.topUp.wechat', defaultMessage: 'WeChat Pay', description: 'Pay by WeChat Pay' },
  disabled: {
    id: 'wallet.topUp.disabledHint',
    defaultMessage: 'Online top-up is not available on this site.',
    description: 'Hint when online top-up is off',
  },
  confirmTitle: { id: 'wallet.topUp.confirmTitle', defaultMessage: 'Confirm top-up', description: 'Confirm dialog title' },
  confirmAmount: { id: 'wallet.topUp.confirmAmount', defaultMessage: 'Top-up amount', description: 'Confirm: amount' },
  confirmPayable: { id: 'wallet.topUp.confirmPayable', defaultMessage: 'Payable', description: 'Confirm: money to pay' },
  confirmMethod: { id: 'wallet.topUp.confirmMethod', defaultMessage: 'Payment method', description: 'Confirm: method' },
  confirmOk: { id: 'wallet.topUp.confirmOk', defaultMessage: 'Pay', description: 'Confirm button' },
});

export const records = defineMessages({
  title: { id: 'wallet.records.title', defaultMessage: 'Top-up records', description: 'Top-up records card' },
  tradeNo: { id: 'wallet.records.tradeNo', defaultMessage: 'Order number', description: 'Column: trade number' },
  amount: { id: 'wallet.records.amount', defaultMessage: 'Amount', description: 'Column: amount' },
  money: { id: 'wallet.records.money', defaultMessage: 'Paid', description: 'Column: money' },
  method: { id: 'wallet.records.method', defaultMessage: 'Method', description: 'Column: payment method' },
  status: { id: 'wallet.records.status', defaultMessage: 'Status', description: 'Column: status' },
  created: { id: 'wallet.records.created', defaultMessage: 'Created', description: 'Column: created time' },
  completed: { id: 'wallet.records.completed', defaultMessage: 'Completed', description: 'Column: completed time' },
  pending: { id: 'wallet.records.pending', defaultMessage: 'Pending', description: 'Order status pending' },
  success: { id: 'wallet.records.success', defaultMessage: 'Paid', description: 'Order status success' },
});

export const errors = defineMessages({
  noTopUpLink: {
    id: 'wallet.errors.noTopUpLink',
    defaultMessage: 'The super administrator has not set a top-up link',
    description: 'Buy a code without a top-up link',
  },
  onlineDisabled: {
    id: 'wallet.errors.onlineDisabled',
    defaultMessage: 'The administrator has not enabled online top-up',
    description: 'Pay while online top-up is off',
  },
  amountTooSmall: {
    id: 'wallet.errors.amountTooSmall',
    defaultMessage: 'The top-up amount cannot be less than {min}',
    description: 'Amount below min_topup',
  },
  codeRequired: {
    id: 'wallet.errors.codeRequired',
    defaultMessage: 'Please enter the redemption code',
    description: 'Redeem without a code',
  },
  payFailed: { id: 'wallet.errors.payFailed', defaultMessage: 'Payment request failed', description: 'Pay failed' },
});
